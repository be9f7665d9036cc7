// stub.test.ts — a file against the stub of the global setup, in a session of its own, so files run in parallel
import { connectStub } from "@compute-api/stub-server/testing";
import { afterAll, beforeEach, expect, inject, it } from "vitest";

const { url, apiKey } = inject("stub");
// This file's own state, faults and journal inside the one stub: its client sends stub.headers on every request.
const stub = connectStub(url, { apiKey }).session();
beforeEach(() => stub.reset());
afterAll(() => stub.close());

it("switches a machine on, as the client was asked to", async () => {
  // Your client here: createComputeClient({ baseUrl: stub.url, apiKey: stub.apiKey, headers: stub.headers }).
  const response = await fetch(`${stub.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
    method: "PATCH",
    headers: { ...stub.headers, authorization: `Bearer ${stub.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ powerState: "ON" }),
  });
  expect(response.status).toBe(200);
  const [sent] = await stub.expectRequests({ operationId: "updateClusterMachine" }, 1);
  expect(sent?.body).toEqual({ powerState: "ON" });
  expect(sent?.headers.authorization).toBe("Bearer [redacted]");
});

it("starts each test from the same data", async () => {
  const snapshot = await stub.snapshot();
  const machine = snapshot.clusters?.flatMap((c) => c.machines ?? []).find((m) => m.id === "cm-alpha-01");
  expect(machine?.powerState).toBe("OFF");
});

it("answers 503 twice, then the search: what the client's retries meet", async () => {
  await stub.faults({ scenarios: { searchResources: "503x2" }, retryAfter: 0 });
  const search = () =>
    fetch(`${stub.url}/v1/resources/search?query=train`, {
      headers: { ...stub.headers, authorization: `Bearer ${stub.apiKey}` },
    });
  const statuses = [(await search()).status, (await search()).status, (await search()).status];
  expect(statuses).toEqual([503, 503, 200]);
});
