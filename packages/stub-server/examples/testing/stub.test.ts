// stub.test.ts — a test against the stub of the global setup: reset before each test, then assert what was sent
import { connectStub } from "@compute-api/stub-server/testing";
import { beforeEach, expect, inject, it } from "vitest";

const { url, apiKey } = inject("stub");
const stub = connectStub(url, { apiKey });
beforeEach(() => stub.reset());

it("switches a machine on, as the client was asked to", async () => {
  // Your client here; fetch stands in for it.
  const response = await fetch(`${stub.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${stub.apiKey}`, "content-type": "application/json" },
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

it("shows the client what a 503 looks like", async () => {
  await stub.faults({ faults: "503=100%" });
  const response = await fetch(`${stub.url}/v1/resources/search?query=train`, {
    headers: { authorization: `Bearer ${stub.apiKey}` },
  });
  expect(response.status).toBe(503);
  await stub.faults({ faults: null });
});
