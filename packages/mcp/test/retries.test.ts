/**
 * Retries that follow the tools' annotations, against the real stub's injected faults (`--faults` set through its
 * admin API, with a seed, so that each run draws the same sequence; the stub's 503 asks `Retry-After: 1`): a
 * read-only or idempotent tool answered 429 or 503 is called again as the service's Retry-After asks, at most 3
 * attempts and 5 s of waiting in all; the POST that creates a key never is. A failed search never says that a
 * change may have been applied; only the POST's failure may.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectStdio, keys, killStarted, startStub, type TestStub, textOf } from "./support.js";

afterAll(killStarted);

// The draws of 503=50% from seed 7 are 503, 503, then 200; from seed 8, 503 then 200.
const twoFailuresThenSuccess = { faults: "503=50%", seed: 7 };
const oneFailureThenSuccess = { faults: "503=50%", seed: 8 };
const mayHaveBeenApplied = /may or may not have been applied/;

describe("retries of compute-mcp's tools", { timeout: 120_000 }, () => {
  let stub: TestStub;
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    stub = await startStub();
    ({ client, close } = await connectStdio(stub.url, keys.alice));
  });
  afterAll(async () => {
    await close?.();
    await stub?.close();
  });
  beforeEach(async () => {
    await stub.faults({ faults: null, rateLimit: null });
    await stub.clearRequests();
  });

  const statuses = async (method: string) => (await stub.requests({ method })).map((entry) => entry.status);

  it("calls the idempotent update again after each 503, and it succeeds on the third attempt", async () => {
    await stub.faults(twoFailuresThenSuccess);
    const result = await client.callTool({
      name: "updateClusterMachine",
      arguments: { projectId: "proj-alpha", id: "cm-alpha-02", powerState: "REBOOTING" },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: "cm-alpha-02", powerState: "REBOOTING" });
    expect(await statuses("PATCH")).toEqual([503, 503, 200]);
  });

  it("calls the read-only search again after a 503", async () => {
    await stub.faults(oneFailureThenSuccess);
    const result = await client.callTool({ name: "searchResources", arguments: { query: "train" } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(await statuses("GET")).toEqual([503, 200]);
  });

  it("never calls the POST that creates a key again, and says the change may or may not have been applied", async () => {
    await stub.faults(twoFailuresThenSuccess);
    const result = await client.callTool({ name: "createApiKey", arguments: { apikeyId: "retry-never" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^createApiKey failed: 503 /);
    expect(textOf(result)).toMatch(mayHaveBeenApplied);
    expect(textOf(result)).not.toMatch(/attempts/);
    expect(await statuses("POST")).toEqual([503]);
  });

  it("stops after 3 attempts, and a failed search says nothing about a change", async () => {
    await stub.faults({ faults: "503=100%" });
    const result = await client.callTool({ name: "searchResources", arguments: { query: "train" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^searchResources failed: 503 /);
    expect(textOf(result)).toMatch(/after 3 attempts/);
    expect(textOf(result)).not.toMatch(mayHaveBeenApplied);
    expect(await statuses("GET")).toEqual([503, 503, 503]);
  });

  it("does not wait longer than its bound: a Retry-After of a minute is left to the agent", async () => {
    await stub.faults({ rateLimit: "1/min" });
    await client.callTool({ name: "searchResources", arguments: { query: "train" } });
    const limited = await client.callTool({ name: "searchResources", arguments: { query: "alpha" } });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/^searchResources failed: 429 /);
    expect(textOf(limited)).toMatch(/Retry after (5\d|60) s/);
    expect(await statuses("GET")).toEqual([200, 429]);
  });
});

describe("a call that gets no answer", { timeout: 120_000 }, () => {
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    // A stub started and stopped: nothing listens at its address any more.
    const gone = await startStub();
    await gone.close();
    ({ client, close } = await connectStdio(gone.url, keys.alice));
  });
  afterAll(async () => {
    await close?.();
  });

  it.each([
    ["searchResources", { query: "train" }, /Nothing was changed \(this tool only reads\)/],
    [
      "updateClusterMachine",
      { projectId: "proj-alpha", id: "cm-alpha-01", state: "ACTIVE" },
      /Calling it again with the same arguments is safe/,
    ],
    ["createApiKey", { apikeyId: "unanswered" }, mayHaveBeenApplied],
  ])("%s says what a repeat would do", async (name, args, advice) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(new RegExp(`^${name} failed: no answer from`));
    expect(textOf(result)).toMatch(advice);
    if (name !== "createApiKey") expect(textOf(result)).not.toMatch(mayHaveBeenApplied);
  });
});
