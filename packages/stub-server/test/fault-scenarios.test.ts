/**
 * Faults targeted and sequenced: a scenario per operation ("503 twice, then 200"), `*` for any operation, drops as
 * steps, and the `Retry-After` of injected answers (0 lets a retry test run at once) — through the admin API, the
 * testing helper with the real client, the command line's parsers, and the MSW handlers, which decide alike.
 */
import { createComputeClient, unwrap } from "@compute-api/client";
import { expectErrorBody } from "@compute-api/test-support";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { scenarioList } from "../src/cli-flags.js";
import type { FaultOptions } from "../src/faults.js";
import { createStubHandlers } from "../src/msw/index.js";
import { type StubHandle, startStub } from "../src/testing.js";
import { json, reasons, startTestStub, type TestStub, violations } from "./support/stub.js";

const search = "/v1/resources/search?query=cl-train-01%20type:cluster";
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** PATCH /__stub/faults with a JSON body. */
const patchFaults = (stub: TestStub, change: unknown) =>
  fetch(`${stub.url}/__stub/faults`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(change),
  });

/** The RetryInfo delay of an error body. */
const retryDelay = (body: { details?: { retryDelay?: string }[] }) =>
  body.details?.find((d) => d.retryDelay)?.retryDelay;

/** The power state of cm-alpha-01 in alice's search. */
async function powerState(stub: TestStub): Promise<string | undefined> {
  const { results } = (await (await stub.call(search)).json()) as {
    results: { cluster: { machines: { id: string; powerState: string }[] } }[];
  };
  return results[0]?.cluster.machines.find((m) => m.id === "cm-alpha-01")?.powerState;
}

describe("scenarios through the admin API", () => {
  let stub: TestStub;
  beforeAll(async () => {
    stub = await startTestStub();
  });
  afterAll(() => stub.close());
  beforeEach(async () => {
    await fetch(`${stub.url}/__stub/faults`, { method: "DELETE", headers: { "content-type": "application/json" } });
    await fetch(`${stub.url}/__stub/reset`, { method: "POST", headers: { "content-type": "application/json" } });
  });

  it("503 twice, then 200, every time: the other operations are neither failed nor counted", async () => {
    const set = await patchFaults(stub, {
      scenarios: { searchResources: [{ status: 503, times: 2 }, { status: 200 }] },
      retryAfter: 0,
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      retryAfter: 0,
      scenarios: { searchResources: [{ status: 503, times: 2 }, { status: 200 }] },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const failed = await stub.call(search);
      const body = await expectErrorBody(failed, 503);
      statuses.push(failed.status);
      expect(reasons(body)).toEqual(["UNAVAILABLE"]);
      expect(failed.headers.get("retry-after")).toBe("0");
      expect(retryDelay(body as never)).toBe("0s");
      // Another operation between them: answered, and not a call of the search's scenario.
      statuses.push((await stub.call(machine, json("PATCH", { powerState: "ON" }))).status);
    }
    for (let i = 0; i < 3; i++) statuses.push((await stub.call(search)).status);
    expect(statuses).toEqual([503, 200, 503, 200, 200, 200, 200]);
    const journal = (await (await fetch(`${stub.url}/__stub/requests?operationId=searchResources`)).json()) as {
      requests: { status: number; fault?: string }[];
    };
    expect(journal.requests.map((r) => [r.status, r.fault])).toEqual([
      [503, "scenario 503"],
      [503, "scenario 503"],
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
  });

  it("never changes state with an injected step; the call after it does", async () => {
    await patchFaults(stub, { scenarios: { updateClusterMachine: "500x1" } });
    expect((await stub.call(machine, json("PATCH", { powerState: "ON" }))).status).toBe(500);
    expect(await powerState(stub)).toBe("OFF");
    expect((await stub.call(machine, json("PATCH", { powerState: "ON" }))).status).toBe(200);
    expect(await powerState(stub)).toBe("ON");
  });

  it("drops a connection as a step, and `*` scripts every operation without a scenario of its own", async () => {
    await patchFaults(stub, {
      scenarios: { searchResources: [{ drop: true, times: 1 }], "*": [{ status: 429, times: 1 }] },
    });
    const dropped = await stub.call(search).then(
      () => "answered",
      (error: Error) => error.name,
    );
    expect(dropped).toBe("TypeError");
    const limited = await stub.call("/v1/api-keys", json("POST", { apikeyId: "scripted" }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await stub.call("/v1/api-keys", json("POST", { apikeyId: "scripted" }))).status).toBe(200);
    expect((await stub.call(search)).status).toBe(200);
  });

  it("counts only calls the stub would answer: a request without a valid key is refused and uses no step", async () => {
    await patchFaults(stub, { scenarios: { searchResources: "503x1" } });
    expect((await stub.call(search, { as: null })).status).toBe(401);
    expect((await stub.call(search)).status).toBe(503);
    expect((await stub.call(search)).status).toBe(200);
  });

  it("starts each scenario again when the faults are set again; null removes one", async () => {
    await patchFaults(stub, { scenarios: { searchResources: "503x1" } });
    expect((await stub.call(search)).status).toBe(503);
    await patchFaults(stub, { scenarios: { searchResources: "503x1" } });
    expect((await stub.call(search)).status).toBe(503);
    expect((await stub.call(search)).status).toBe(200);
    const off = await patchFaults(stub, { scenarios: { searchResources: null } });
    expect(await off.json()).toMatchObject({ scenarios: null });
  });

  it("Retry-After: the setting is that of --faults and Prefer too; the default is 1", async () => {
    expect((await stub.call(search, { headers: { prefer: "code=503" } })).headers.get("retry-after")).toBe("1");
    await patchFaults(stub, { retryAfter: 0 });
    const preferred = await stub.call(search, { headers: { prefer: "code=429" } });
    expect(preferred.headers.get("retry-after")).toBe("0");
    expect(retryDelay((await preferred.json()) as never)).toBe("0s");
    await patchFaults(stub, { faults: "503=100%", retryAfter: 7 });
    expect((await stub.call(search)).headers.get("retry-after")).toBe("7");
  });

  it.each<[string, unknown, string[]]>([
    ["an operation the spec lacks", { scenarios: { deleteEverything: "503" } }, ["body.scenarios.deleteEverything"]],
    [
      "a status the operation does not document",
      { scenarios: { searchResources: [{ status: 409 }] } },
      ["body.scenarios.searchResources[0].status"],
    ],
    [
      "a step without times before the last",
      { scenarios: { searchResources: [{ status: 503 }, { status: 200 }] } },
      ["body.scenarios.searchResources[0].times"],
    ],
    [
      "times of 0",
      { scenarios: { searchResources: [{ status: 503, times: 0 }] } },
      ["body.scenarios.searchResources[0].times"],
    ],
    [
      "a step of neither status nor drop, and a field of no step",
      { scenarios: { searchResources: [{ times: 2, retry: 1 }, { status: 200 }] } },
      ["body.scenarios.searchResources[0].retry", "body.scenarios.searchResources[0]"],
    ],
    [
      "a step list the flag's syntax does not read",
      { scenarios: { searchResources: "503 twice" } },
      ["body.scenarios.searchResources"],
    ],
    ["no steps", { scenarios: { searchResources: [] } }, ["body.scenarios.searchResources"]],
    ["scenarios that are not an object", { scenarios: [] }, ["body.scenarios"]],
    ["a negative Retry-After", { retryAfter: -1 }, ["body.retryAfter"]],
    ["a Retry-After that is not whole", { retryAfter: 0.5 }, ["body.retryAfter"]],
  ])("refuses %s with a 400 naming it, and changes nothing", async (_name, change, fields) => {
    const before = await (await fetch(`${stub.url}/__stub/faults`)).json();
    const res = await patchFaults(stub, change);
    const body = await expectErrorBody(res, 400);
    expect(violations(body).map((v) => v.field)).toEqual(fields);
    expect(await (await fetch(`${stub.url}/__stub/faults`)).json()).toEqual(before);
  });
});

describe("scenarios through the testing helper and the real client", () => {
  let stub: StubHandle;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());

  it("the client's retries meet 503 twice with Retry-After: 0 and get the 200, at once", async () => {
    await stub.faults({ scenarios: { searchResources: [{ status: 503, times: 2 }, { status: 200 }] }, retryAfter: 0 });
    // No backoff of the client's own: the waits are the stub's Retry-After, 0.
    const client = createComputeClient({ baseUrl: stub.url, apiKey: stub.apiKey, retry: { baseDelayMs: 0 } });
    const { results } = unwrap(
      await client.GET("/v1/resources/search", { params: { query: { query: "type:cluster" } } }),
    );
    expect(results.length).toBeGreaterThan(0);
    const sent = await stub.requests({ operationId: "searchResources" });
    expect(sent.map((r) => r.status)).toEqual([503, 503, 200]);
  });
});

describe("the command line's --scenario", () => {
  it.each<[string, string, unknown]>([
    ["one operation", "searchResources=503x2,200", { searchResources: [{ status: 503, times: 2 }, { status: 200 }] }],
    [
      "several, with a drop and `*`",
      "createApiKey=dropx1,500 ; *=429x3",
      { createApiKey: [{ drop: true, times: 1 }, { status: 500 }], "*": [{ status: 429, times: 3 }] },
    ],
  ])("reads %s", (_name, given, want) => {
    expect(scenarioList(given)).toEqual(want);
  });

  it("adds a repeated flag's scenarios to the earlier ones", () => {
    expect(Object.keys(scenarioList("updateClusterMachine=500", scenarioList("searchResources=503x1")))).toEqual([
      "searchResources",
      "updateClusterMachine",
    ]);
  });

  it.each<[string, RegExp]>([
    ["searchResources", /is not a scenario such as searchResources=503x2,200/],
    ["searchResources=503 twice", /'503 twice' is not a step/],
    ["searchResources=409", /409 is not a status the operation documents/],
    ["nothing=503", /nothing is not an operationId of the spec/],
    ["searchResources=503,200", /is needed on every step but the last/],
  ])("refuses %s, saying why", (given, want) => {
    expect(() => scenarioList(given)).toThrow(want);
  });
});

describe("scenarios in the MSW handlers, as the stub's", () => {
  const baseUrl = "https://compute.example";
  const apiKey = "cak_test_scenario_alice";
  const faults: FaultOptions = {
    scenarios: { searchResources: [{ status: 503, times: 2 }, { status: 200, times: 1 }, { drop: true }] },
    retryAfterSeconds: 0,
  };

  /** Five searches, then a PATCH: what a caller sees of each. */
  async function calls(url: string): Promise<unknown[]> {
    const seen: unknown[] = [];
    const headers = { authorization: `Bearer ${apiKey}` };
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${url}${search}`, { headers }).then(
        async (res) => [res.status, res.headers.get("retry-after"), (await res.json()).details?.length],
        (error: Error) => error.name,
      );
      seen.push(answer);
    }
    const patched = await fetch(`${url}${machine}`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ powerState: "ON" }),
    });
    seen.push(patched.status);
    return seen;
  }

  it("answer the same steps as the stub over HTTP", async () => {
    const handlers = createStubHandlers({ baseUrl, apiKeys: { alice: apiKey }, faults });
    const server = setupServer(...handlers.handlers);
    server.listen({ onUnhandledRequest: "error" });
    let fromHandlers: unknown[];
    try {
      fromHandlers = await calls(baseUrl);
      // setFaults starts the scenario again.
      handlers.setFaults({ scenarios: faults.scenarios, retryAfter: 0 });
      expect((await calls(baseUrl))[0]).toEqual([503, "0", 2]);
    } finally {
      server.close();
    }
    const stub = await startStub({ apiKey, faults });
    try {
      expect(fromHandlers).toEqual(await calls(stub.url));
    } finally {
      await stub.close();
    }
    expect(fromHandlers).toEqual([[503, "0", 2], [503, "0", 2], [200, null, undefined], "TypeError", "TypeError", 200]);
  });

  it("refuse scenarios the spec does not allow, in the options and in setFaults", () => {
    expect(() =>
      createStubHandlers({ baseUrl, faults: { scenarios: { searchResources: [{ status: 409 }] } } }),
    ).toThrow(/faults\.scenarios\.searchResources\[0\]\.status 409 is not a status the operation documents/);
    const handlers = createStubHandlers({ baseUrl });
    expect(() => handlers.setFaults({ scenarios: { nothing: [{ status: 503 }] } })).toThrow(
      /nothing is not an operationId/,
    );
    expect(() => handlers.setFaults({ retryAfter: -1 })).toThrow(/retryAfter must be a whole number/);
    expect(handlers.faultSettings()).toEqual({});
  });
});
