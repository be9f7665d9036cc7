// answers.test.ts — the handlers' own answers go through the spec's check and the journal, unlike server.use()
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, it } from "vitest";

const baseUrl = "https://compute.example";
const stub = createStubHandlers({ baseUrl, apiKeys: { alice: "cak_test_alice" } });
const server = setupServer(...stub.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

it("answers one search with the test's own body, journaled with its id", async () => {
  const id = stub.answer({
    request: { operationId: "searchResources", query: { query: "none" } },
    answer: { status: 200, body: { results: [] } },
  });
  const response = await fetch(`${baseUrl}/v1/resources/search?query=none`, {
    headers: { authorization: "Bearer cak_test_alice" },
  });
  expect(await response.json()).toEqual({ results: [] });
  expect(stub.expectRequests({ operationId: "searchResources" }, 1)[0]?.answerId).toBe(id);
  expect(() => stub.answer({ request: { operationId: "searchResources" }, answer: { status: 418 } })).toThrow(
    "answer.status: 418 is not a status searchResources documents",
  );
  expect(() => stub.requests({ operationid: "createApiKey" } as never)).toThrow("operationid: is not a filter");
});

it("takes the admin API's fault settings, with its check: 503 once, then the search", async () => {
  stub.setFaults({ scenarios: { searchResources: "503x1" }, retryAfter: 0 });
  const search = () =>
    fetch(`${baseUrl}/v1/resources/search?query=alpha`, { headers: { authorization: "Bearer cak_test_alice" } });
  expect([(await search()).status, (await search()).status]).toEqual([503, 200]);
  // What PATCH /__stub/faults refuses with a 400 throws here, with the same words.
  expect(() => stub.setFaults({ faults: "418=100%" })).toThrow("'418' is not a status every operation documents");
});
