import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ApiKey, ComputeApiError, createComputeClient, unwrap } from "../../src/index.js";
import { exposedText, failure, fakeFetch, json, never, thrownBy } from "../support/fake-fetch.js";
import { type LocalServer, startLocalServer } from "../support/local-server.js";

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

describe("a key that is not a non-empty string is refused when the client is created", () => {
  // What a caller's code can hand over at run time whatever its types said (`process.env.X!`, JSON, `as any`).
  const notKeys: [string, { given: unknown; want: string }][] = [
    ["undefined", { given: undefined, want: "the API key is missing (apiKey is undefined)" }],
    ["null", { given: null, want: "the API key is missing (apiKey is null)" }],
    ["an empty string", { given: "", want: "the API key is missing (apiKey is an empty string)" }],
    ["a number", { given: 42, want: "the API key must be a string (apiKey is a number)" }],
    ["a boolean", { given: true, want: "the API key must be a string (apiKey is a boolean)" }],
    ["an object", { given: { key: "cak_secret" }, want: "the API key must be a string (apiKey is an object)" }],
    ["an array", { given: ["cak_secret"], want: "the API key must be a string (apiKey is an array)" }],
  ];

  test.each(notKeys)("%s: a TypeError that says so and does not quote it", (_, { given, want }) => {
    const thrown = thrownBy(() => createComputeClient({ baseUrl, apiKey: given as ApiKey }));
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toHaveProperty("message", expect.stringContaining(`compute-api client: ${want}`));
    expect(exposedText(thrown)).not.toContain("secret");
  });

  test.each(notKeys)("a key function returning %s fails each call before anything is sent", async (_, { given }) => {
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({ baseUrl, fetch, apiKey: () => given as string });
    const thrown = await client.GET("/v1/resources/search", search).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toHaveProperty("message", expect.stringContaining("(what apiKey() returned is"));
    expect(exposedText(thrown)).not.toContain("secret");
    expect(sent).toHaveLength(0);
  });
});

describe("against a real server", () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer((_, response) => {
      response.setHeader("Content-Type", "application/json");
      response.end('{"results":[]}');
    });
  });
  afterAll(() => server.close());

  test("a key read from an environment variable that is not set is refused at creation, not sent as `Bearer undefined`", () => {
    // Regression: only string keys were checked, so `apiKey: process.env.COMPUTE_API_KEY!` with the variable unset
    // created a client that sent `Authorization: Bearer undefined`, and the user saw a 401 from the server.
    const unset = "COMPUTE_API_KEY_NEVER_SET_IN_TESTS";
    expect(process.env[unset]).toBeUndefined();
    expect(() => createComputeClient({ baseUrl: server.url, apiKey: process.env[unset] })).toThrow(
      new TypeError(
        "compute-api client: the API key is missing (apiKey is undefined); is it read from an environment variable " +
          "that is not set?",
      ),
    );
    expect(server.received).toEqual([]);
  });

  test("a key function is checked on each request: a good key reaches the server, a missing one nothing", async () => {
    const keys = [apiKey, undefined];
    const client = createComputeClient({ baseUrl: server.url, apiKey: () => keys.shift() as string });
    expect((await client.GET("/v1/resources/search", search)).response.status).toBe(200);
    await expect(client.GET("/v1/resources/search", search)).rejects.toThrow(
      "compute-api client: the API key is missing (what apiKey() returned is undefined)",
    );
    expect(server.received.map((request) => request.authorization)).toEqual([`Bearer ${apiKey}`]);
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
