// msw.test.ts — the stub inside the test process, no server: MSW answers the client's requests
import { createComputeClient, unwrap } from "@compute-api/client";
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";

const baseUrl = "https://compute.example";
const apiKey = "cak_test_alice";
const stub = createStubHandlers({ baseUrl, apiKeys: { alice: apiKey } });
const server = setupServer(...stub.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
beforeEach(() => {
  stub.reset();
  stub.clearRequests();
});
afterAll(() => server.close());

// Made after listen(): a client takes the global fetch, which MSW replaces, when it is made.
const client = () => createComputeClient({ baseUrl, apiKey });

it("switches a machine on; the search shows it, and the journal what was sent", async () => {
  const machine = unwrap(
    await client().PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
      body: { powerState: "ON" },
    }),
  );
  expect(machine.powerState).toBe("ON");
  const { results } = unwrap(
    await client().GET("/v1/resources/search", { params: { query: { query: "type:cluster cl-train-01" } } }),
  );
  expect(results[0]?.resourceType === "cluster" && results[0].cluster.machines?.[0]?.powerState).toBe("ON");
  const [sent] = stub.expectRequests({ operationId: "updateClusterMachine" }, 1);
  expect(sent?.body).toEqual({ powerState: "ON" });
  expect(sent?.headers.authorization).toBe("Bearer [redacted]");
});

it("refuses what the spec refuses, with the stub's error body", async () => {
  const { error, response } = await client().POST("/v1/api-keys", { body: { apikeyId: "Not Valid" } });
  expect(response.status).toBe(400);
  expect(error?.details).toContainEqual(
    expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: "apikeyId" })] }),
  );
});
