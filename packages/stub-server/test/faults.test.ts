/**
 * Faults on demand: the caller's `Prefer` (code, latency) and the run's `--faults`, `--latency`, `--drop` and
 * `--rate-limit`. Every injected answer is the spec's error body with the status asked for, comes before the
 * operation's handler and so changes nothing, and is named in the request's log line.
 */
import { loadSpec, specOperations } from "@compute-api/contract";
import { expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectFastTotalParser, maxParseGrowth, parseGrowth } from "../../../test/adversarial/support/header-fuzz.js";
import { type FaultOptions, injectedError, maxPreferLength, parsePrefer } from "../src/faults.js";
import { json, reasons, startTestStub, type TestStub, validator, violations } from "./support/stub.js";

const spec = loadSpec();
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
const search = "/v1/resources/search?query=alpha";

/** One request of each operation, as alice, and the statuses the operation documents. */
const operations = specOperations(spec).map(({ operation }) => {
  const operationId = String(operation.operationId);
  const statuses = Object.keys(operation.responses as object).map(Number);
  const request =
    operationId === "updateClusterMachine"
      ? { path: machine, init: json("PATCH", { powerState: "REBOOTING" }) }
      : operationId === "createApiKey"
        ? { path: "/v1/api-keys", init: json("POST", { apikeyId: "injected-key" }) }
        : { path: search, init: {} };
  return { operationId, statuses, ...request };
});

/** Alice's view of cl-train-01 and her key ids: what a PATCH or a key creation would change. */
async function state(stub: TestStub): Promise<unknown> {
  const res = await stub.call("/v1/resources/search?query=cl-train-01%20type:cluster");
  return res.json();
}

describe("parsePrefer", () => {
  it("is linear: a 16 KiB quoted value of escaped quotes parses no slower than its pieces (a regexp took 200 ms)", () => {
    // `(?:[^,"]|"(?:[^"\\]|\\.)*")+` rescanned the unclosed quoted string from every quote in it.
    for (const value of [`x="${'\\"'.repeat(8192)}`, '\\"'.repeat(8192), `x="${"a".repeat(16_384)}`]) {
      expect(parseGrowth(parsePrefer, value)).toBeLessThan(maxParseGrowth);
    }
  });

  it.each([
    ['respond-async, latency="250"; x=1, code=503', { "respond-async": "", latency: "250", code: "503" }],
    ['Code = "5\\"03" ; a="b,c" , LATENCY=1, code=429', { code: '5"03', latency: "1" }],
    ['x="a, code=503", code=404', { x: "a, code=503", code: "404" }],
    ['x="unclosed, code=503', { x: "unclosed, code=503" }],
    [" , ;a, =1,code=429", { code: "429" }],
  ])("reads %j as RFC 7240 writes it", (header, want) => {
    expect(Object.fromEntries(parsePrefer(header))).toEqual(want);
  });

  it("reads a repeated header as one list", () => {
    expect(Object.fromEntries(parsePrefer(["code=503", "latency=1, code=404"]))).toEqual({ code: "503", latency: "1" });
  });

  it("parses any value up to 16 KiB in linear time, never throwing, into lower-case names (fuzz)", () => {
    expectFastTotalParser(parsePrefer, ["code=", "latency=", "Code=5", "respond-async"], (_value, preferences) => {
      for (const name of preferences.keys()) expect(name).toBe(name.trim().toLowerCase());
    });
  });
});

describe("Prefer", () => {
  let stub: TestStub;
  beforeAll(async () => {
    stub = await startTestStub();
  });
  afterAll(() => stub.close());

  describe.each(operations)("$operationId", ({ statuses, path, init }) => {
    it.each(statuses.filter((s) => s >= 400))(
      "code=%i: that status, the error body, nothing changed",
      async (status) => {
        const before = await state(stub);
        const res = await stub.call(path, { ...init, headers: { prefer: `code=${status}` } });
        const body = await expectErrorBody(res, status);
        expect(res.headers.get("preference-applied")).toBe(`code=${status}`);
        if (status === 429 || status === 503) {
          expect(res.headers.get("retry-after")).toBe("1");
          expect(body.details).toContainEqual({
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            retryDelay: "1s",
          });
        }
        expect(await state(stub)).toEqual(before);
      },
    );
  });

  it("answers a code the operation does not document with 400 naming the header", async () => {
    const body = await expectErrorBody(await stub.call(search, { headers: { prefer: "code=404" } }), 400);
    expect(violations(body)).toEqual([expect.objectContaining({ field: "header.prefer", reason: "prefer" })]);
  });

  it("answers code=200 as the operation would, and a created key is created for real", async () => {
    const res = await stub.call("/v1/api-keys", {
      ...json("POST", { apikeyId: "prefer-200" }),
      headers: { prefer: "code=200" },
    });
    expect(res.status).toBe(200);
    expect(await (await stub.call("/v1/api-keys", json("POST", { apikeyId: "prefer-200" }))).json()).toMatchObject({
      code: 409,
    });
  });

  it("never creates a key it was asked to fail, so the same id is free afterwards", async () => {
    await expectErrorBody(
      await stub.call("/v1/api-keys", {
        ...json("POST", { apikeyId: "failed-once" }),
        headers: { prefer: "code=500" },
      }),
      500,
    );
    expect((await stub.call("/v1/api-keys", json("POST", { apikeyId: "failed-once" }))).status).toBe(200);
  });

  it("delays an answer by latency=…, with several preferences in RFC 7240 syntax", async () => {
    const started = performance.now();
    const res = await stub.call(search, { headers: { prefer: 'respond-async, latency="250"; x=1, code=503' } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
    expect(res.status).toBe(503);
    expect(res.headers.get("preference-applied")).toBe("latency=250, code=503");
  });

  it.each(["latency=-1", "latency=soon", "latency=600000"])("answers %s with 400 naming the header", async (prefer) => {
    const body = await expectErrorBody(await stub.call(search, { headers: { prefer } }), 400);
    expect(violations(body).map((v) => v.field)).toEqual(["header.prefer"]);
  });

  it("answers a Prefer over maxPreferLength with 400 naming the header and the limit, unparsed; one at the limit is honoured", async () => {
    const long = `x="${'\\"'.repeat(6000)}`;
    const body = await expectErrorBody(await stub.call(search, { headers: { prefer: `code=503, ${long}` } }), 400);
    // The description names the length limit: the value was refused for its length, before any parse.
    expect(violations(body)).toEqual([
      expect.objectContaining({
        field: "header.prefer",
        reason: "prefer",
        description: expect.stringContaining(String(maxPreferLength)),
      }),
    ]);
    const atLimit = `code=503, x="${"a".repeat(maxPreferLength - 14)}"`;
    expect(atLimit).toHaveLength(maxPreferLength);
    await expectErrorBody(await stub.call(search, { headers: { prefer: atLimit } }), 503);
  });

  it("names what it injected in the request's log line", async () => {
    await stub.call(search, { headers: { prefer: "code=502, latency=10", "x-request-id": "prefer-log" } });
    await expect.poll(() => stub.logs.find((l) => l.includes("prefer-log"))).toBeDefined();
    expect(JSON.parse(stub.logs.find((l) => l.includes("prefer-log"))!)).toMatchObject({
      res: { status: 502 },
      fault: "prefer 502",
      latencyMs: 10,
    });
    // An answer given on purpose is not a failure of the stub: no error line, no stack.
    expect(stub.logs.filter((l) => l.includes('"msg":"request failed"'))).toEqual([]);
  });

  it("is ignored with --no-prefer", async () => {
    const deaf = await startTestStub({ faults: { prefer: false } });
    try {
      const res = await deaf.call(search, { headers: { prefer: "code=503, latency=5000" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("preference-applied")).toBeNull();
    } finally {
      await deaf.close();
    }
  });
});

/** Starts a stub with the run's faults, sends `count` searches one after the other, and returns their statuses. */
async function statusesWith(faults: FaultOptions, count: number): Promise<number[]> {
  const stub = await startTestStub({ faults });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await stub.call(search);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    return statuses;
  } finally {
    await stub.close();
  }
}

describe("--faults", () => {
  it("answers about the given share of requests with each status, the same ones again with the same seed", async () => {
    const faults = [
      { status: 503, share: 0.2 },
      { status: 500, share: 0.1 },
    ];
    const first = await statusesWith({ faults, seed: 7 }, 200);
    const count = (s: number) => first.filter((x) => x === s).length;
    expect(count(503)).toBeGreaterThan(20);
    expect(count(503)).toBeLessThan(60);
    expect(count(500)).toBeGreaterThan(8);
    expect(count(500)).toBeLessThan(35);
    expect(count(200)).toBe(200 - count(503) - count(500));
    expect(await statusesWith({ faults, seed: 7 }, 200)).toEqual(first);
    expect(await statusesWith({ faults, seed: 8 }, 200)).not.toEqual(first);
  });

  it("injects the error body, never changing state, and says so in the log", async () => {
    const stub = await startTestStub({ faults: { faults: [{ status: 503, share: 1 }] } });
    try {
      const res = await stub.call(machine, {
        ...json("PATCH", { state: "FAILED" }),
        headers: { "x-request-id": "fault-log" },
      });
      const body = await expectErrorBody(res, 503);
      expect(reasons(body)).toEqual(["UNAVAILABLE"]);
      expect(res.headers.get("retry-after")).toBe("1");
      await expect.poll(() => stub.logs.find((l) => l.includes("fault-log"))).toBeDefined();
      expect(JSON.parse(stub.logs.find((l) => l.includes("fault-log"))!)).toMatchObject({ fault: "503" });
    } finally {
      await stub.close();
    }
  });
});

describe("--latency and --drop", () => {
  it("delays every answer within the range", async () => {
    const stub = await startTestStub({ faults: { latencyMs: { min: 60, max: 120 } } });
    try {
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await (await stub.call(search)).arrayBuffer();
        expect(performance.now() - started).toBeGreaterThanOrEqual(55);
      }
      const delays = stub.logs.map((l) => JSON.parse(l) as { latencyMs?: number }).map((l) => l.latencyMs);
      expect(delays.every((d) => d !== undefined && d >= 60 && d <= 120)).toBe(true);
    } finally {
      await stub.close();
    }
  });

  it("drops the connection before any answer, before the body is even read", async () => {
    const stub = await startTestStub({ faults: { drop: 1 } });
    try {
      const error = await stub.call(machine, json("PATCH", { state: "FAILED" })).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TypeError);
      await expect.poll(() => stub.logs.some((l) => (JSON.parse(l) as { fault?: string }).fault === "drop")).toBe(true);
      // The health check is not an API request, so it is never dropped.
      expect((await fetch(`${stub.url}/healthz`)).status).toBe(200);
    } finally {
      await stub.close();
    }
  });
});

describe("--rate-limit", () => {
  it("answers a key over its rate 429 with Retry-After and RetryInfo, changing nothing; other keys are not held back", async () => {
    // One a minute: the second request comes within it, however busy the machine.
    const stub = await startTestStub({ faults: { rateLimit: 1 / 60 } });
    try {
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await stub.call(search)).status);
      expect(statuses).toEqual([200, 429]);
      // Another key is not held back; the state, read through the admin API (which no limit applies to), stays.
      expect((await stub.call("/v1/resources/search?query=cl-train-01", { as: "bob" })).status).toBe(200);
      const snapshot = () => fetch(`${stub.url}/__stub/snapshot`).then((r) => r.text());
      const before = await snapshot();
      const limited = await stub.call(machine, json("PATCH", { state: "FAILED" }));
      const body = await expectErrorBody(limited, 429);
      expect(limited.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(body.details).toContainEqual(
        expect.objectContaining({ "@type": "type.googleapis.com/google.rpc.RetryInfo" }),
      );
      expect(await snapshot()).toBe(before);
    } finally {
      await stub.close();
    }
  });

  it("lets a key through again once it has waited the Retry-After it was given", async () => {
    const stub = await startTestStub({ faults: { rateLimit: 2 } });
    try {
      // Two a second: requests one after the other run into the limit within a few (at most 50, for a hang).
      let limited: Response | undefined;
      for (let i = 0; i < 50 && !limited; i++) {
        const res = await stub.call(search);
        await res.arrayBuffer();
        if (res.status === 429) limited = res;
        else expect(res.status).toBe(200);
      }
      const wait = Number(limited?.headers.get("retry-after"));
      expect(wait).toBeGreaterThanOrEqual(1);
      // Waiting longer only refills the bucket more: no busy machine can make this early.
      await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
      expect((await stub.call(search)).status).toBe(200);
    } finally {
      await stub.close();
    }
  });
});

describe("injected bodies", () => {
  it("are valid error bodies for every status the spec documents anywhere", () => {
    for (const status of [400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 504]) {
      expect(validator.validate("#/components/schemas/ErrorBody", injectedError(status, "x").toBody())).toEqual([]);
    }
  });
});
