// answers.test.ts — answers of the test's own, checked against the spec, and a count of what the client sent
import { type StubHandle, startStub } from "@compute-api/stub-server/testing";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

let stub: StubHandle;
beforeAll(async () => {
  stub = await startStub();
});
afterEach(() => stub.clearAnswers());
afterAll(() => stub.close());

const search = (query: string) =>
  fetch(`${stub.url}/v1/resources/search?query=${query}`, { headers: { authorization: `Bearer ${stub.apiKey}` } });

it("answers one search with the test's own body, and counts what was sent", async () => {
  const id = await stub.answer({
    request: { operationId: "searchResources", query: { query: "none" } },
    answer: { status: 200, body: { results: [] } },
  });
  expect(await (await search("none")).json()).toEqual({ results: [] });
  expect((await (await search("alpha")).json()).results.length).toBeGreaterThan(0); // the store's answer
  const [sent] = await stub.expectRequests({ operationId: "searchResources", query: { query: "none" } }, 1);
  expect(sent?.answerId).toBe(id);
  // A count that is not met rejects with the closest requests and how each differs.
  await expect(stub.expectRequests({ query: { query: "nothing" } }, 1)).rejects.toThrow(
    'query.query: expected "nothing", was "alpha"',
  );
});

it("refuses an answer the spec does not allow, unless it is asked for as invalid", async () => {
  const broken = { request: { operationId: "searchResources" }, answer: { status: 200, body: { results: "x" } } };
  await expect(stub.answer(broken)).rejects.toThrow(/answer\.body\.results.*must be array/);
  await stub.answer({ ...broken, invalid: true }); // to see how the client copes with a broken backend
  expect(await (await search("any")).text()).toBe('{"results":"x"}');
});
