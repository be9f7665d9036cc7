// in-one-file.test.ts — a stub of its own for one test file, no global setup
import { type StubHandle, startStub } from "@compute-api/stub-server/testing";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";

let stub: StubHandle;
beforeAll(async () => {
  stub = await startStub();
});
beforeEach(() => stub.reset());
afterAll(() => stub.close());

it("creates a key, which the journal never shows", async () => {
  const response = await fetch(`${stub.url}/v1/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${stub.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ apikeyId: "ci-key" }),
  });
  const { key } = await response.json();
  const journal = JSON.stringify(await stub.requests());
  expect(journal).toContain("ci-key");
  expect(journal).not.toContain(key);
});
