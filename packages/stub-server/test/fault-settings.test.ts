/**
 * One check of a fault change on both sides: the MSW handlers' `setFaults` reads the body of `PATCH /__stub/faults`
 * (what the helper's `faults(change)` sends) with the admin API's own check, so that what the admin API refuses with
 * a 400 — a name that is no setting, a status no operation documents as a failure, a value of another form — throws
 * on the MSW side with the same words, and changes nothing; and what it takes works alike.
 */
import { newApiKey } from "@compute-api/rules";
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StubHandle, startStub } from "../src/testing.js";
import { violations } from "./support/stub.js";

const baseUrl = "https://compute.example";
const apiKey = newApiKey();

describe("a fault change, over HTTP and in the MSW handlers", () => {
  let stub: StubHandle;
  const handlers = createStubHandlers({ baseUrl, apiKeys: { alice: apiKey } });
  beforeAll(async () => {
    stub = await startStub({ apiKey });
  });
  afterAll(() => stub.close());

  /** What the admin API answers to a change: its status and the descriptions of its violations. */
  async function patched(change: unknown) {
    const response = await fetch(`${stub.url}/__stub/faults`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(change),
    });
    const body = await response.json();
    return { status: response.status, problems: response.ok ? [] : violations(body).map((v) => v.description) };
  }

  it.each([
    ["a name that is no setting", { fault: "503=100%" }],
    ["a status no operation documents as a failure", { faults: "418=100%" }],
    ["the options' form instead of the flags' syntax", { faults: [{ status: 503, share: 1 }] }],
    ["a share over 100 %", { faults: "503=150%" }],
  ])("%s is refused on both sides with the same words, and changes nothing", async (_name, change) => {
    const overHttp = await patched(change);
    expect(overHttp.status).toBe(400);
    expect(overHttp.problems.length).toBeGreaterThan(0);
    const before = handlers.faultSettings();
    expect(() => handlers.setFaults(change as never)).toThrow(/^invalid fault settings: /);
    try {
      handlers.setFaults(change as never);
    } catch (error) {
      for (const problem of overHttp.problems) expect((error as Error).message).toContain(problem);
    }
    expect(handlers.faultSettings()).toEqual(before);
    expect((await stub.faults()).faults).toBeNull();
  });

  it('{ faults: "503=100%" } injects 503 on both sides, and null turns it off', async () => {
    const search = (url: string) =>
      fetch(`${url}/v1/resources/search?query=alpha`, { headers: { authorization: `Bearer ${apiKey}` } });
    const server = setupServer(...handlers.handlers);
    server.listen({ onUnhandledRequest: "bypass" });
    try {
      handlers.setFaults({ faults: "503=100%" });
      await stub.faults({ faults: "503=100%" });
      expect([(await search(baseUrl)).status, (await search(stub.url)).status]).toEqual([503, 503]);
      handlers.setFaults({ faults: null });
      await stub.faults({ faults: null });
      expect([(await search(baseUrl)).status, (await search(stub.url)).status]).toEqual([200, 200]);
    } finally {
      server.close();
    }
  });
});
