import { describe, expect, test } from "vitest";
import { ComputeApiError, createComputeClient, unwrap } from "../../src/index.js";
import { exposedText, failure, fakeFetch, json, never, thrownBy } from "../support/fake-fetch.js";

const baseUrl = "https://compute.example";
const apiKey = "cak_3q2-XQx0mXlY1b5nM4wT8e7rK9sZpA6cV0dF2gH4jL8";
const search = { params: { query: { query: "alpha" } } };

describe("auth middleware", () => {
  test("sends the key as a Bearer token on every operation", async () => {
    const { fetch, sent } = fakeFetch(json(200, {}));
    const client = createComputeClient({ baseUrl, apiKey, fetch });
    await client.GET("/v1/resources/search", search);
    await client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key" } });
    await client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
      body: { powerState: "ON" },
    });
    expect(sent.map((request) => request.headers.get("Authorization"))).toEqual(Array(3).fill(`Bearer ${apiKey}`));
  });

  test("the key wins over an Authorization header passed in the headers option", async () => {
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({ baseUrl, apiKey, fetch, headers: { Authorization: "Bearer other" } });
    await client.GET("/v1/resources/search", search);
    expect(sent[0]?.headers.get("Authorization")).toBe(`Bearer ${apiKey}`);
  });

  test("a key function is asked once per request, so a rotated key is used from the next request on", async () => {
    const keys = ["key-one", "key-two", "key-three"];
    let asked = 0;
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({
      baseUrl,
      fetch,
      apiKey: async () => {
        await Promise.resolve();
        return keys[asked++] ?? "";
      },
    });
    for (let i = 0; i < 3; i++) await client.GET("/v1/resources/search", search);
    expect(asked).toBe(3);
    expect(sent.map((request) => request.headers.get("Authorization"))).toEqual(keys.map((key) => `Bearer ${key}`));
  });

  test("a retried GET is sent with the key too", async () => {
    const { fetch, sent } = fakeFetch(failure(503), json(200, { results: [] }));
    const client = createComputeClient({ baseUrl, apiKey, fetch, retry: { baseDelayMs: 1 } });
    await client.GET("/v1/resources/search", search);
    expect(sent.map((request) => request.headers.get("Authorization"))).toEqual([
      `Bearer ${apiKey}`,
      `Bearer ${apiKey}`,
    ]);
  });
});

describe("the key never appears in an error", () => {
  const invalidKeys: [string, string][] = [
    ["a line break (Headers.set would quote it)", "cak_secret\nX-Injected: 1"],
    ["a space", "cak_secret with-space"],
    ["a non-ASCII letter", "cak_sécret"],
    ["nothing", ""],
  ];

  test.each(invalidKeys)("a string key with %s is refused at creation without quoting it", (_, badKey) => {
    const thrown = thrownBy(() => createComputeClient({ baseUrl, apiKey: badKey }));
    expect(thrown).toBeInstanceOf(TypeError);
    if (badKey !== "") expect(exposedText(thrown)).not.toContain(badKey);
    expect(exposedText(thrown)).not.toContain("secret");
  });

  test.each(invalidKeys)("a key function returning %s fails the call without quoting it", async (_, badKey) => {
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({ baseUrl, fetch, apiKey: () => badKey });
    const thrown = await client.GET("/v1/resources/search", search).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(exposedText(thrown)).not.toContain("secret");
    expect(sent).toHaveLength(0);
  });

  test("a 401 turned into a ComputeApiError carries the service's message, not the key", async () => {
    const { fetch } = fakeFetch(json(401, { code: 401, message: "the API key is not valid" }));
    const client = createComputeClient({ baseUrl, apiKey, fetch });
    const result = await client.GET("/v1/resources/search", search);
    const thrown = thrownBy(() => unwrap(result));
    expect(thrown).toBeInstanceOf(ComputeApiError);
    expect(exposedText(thrown)).toContain("the API key is not valid");
    expect(exposedText(thrown)).not.toContain(apiKey);
  });

  test("a timeout does not carry the key", async () => {
    const { fetch } = fakeFetch(never);
    const client = createComputeClient({ baseUrl, apiKey, fetch, timeoutMs: 5 });
    const thrown = await client.GET("/v1/resources/search", search).catch((error: unknown) => error);
    expect(thrown).toHaveProperty("name", "TimeoutError");
    expect(exposedText(thrown)).not.toContain(apiKey);
  });
});
