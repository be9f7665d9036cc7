import { describe, expect, test } from "vitest";
import { createComputeClient } from "../src/index.js";
import { fakeFetch, json, thrownBy } from "./support/fake-fetch.js";
import { startLocalServer } from "./support/local-server.js";

const apiKey = "test-key";

describe("baseUrl", () => {
  const refused: [string, { given: unknown; want: string }][] = [
    [
      "the origin with /v1",
      {
        given: "http://127.0.0.1:4010/v1",
        want:
          'baseUrl ends in /v1 ("http://127.0.0.1:4010/v1"), but the API\'s paths start with /v1 already (calls ' +
          'would go to /v1/v1/… and get 404); give the origin, "http://127.0.0.1:4010"',
      },
    ],
    [
      "the origin with /v1/",
      { given: "https://api.example.com/v1/", want: 'give the origin, "https://api.example.com"' },
    ],
    ["/V1 in capitals", { given: "https://api.example.com/V1", want: 'give the origin, "https://api.example.com"' }],
    [
      "a path prefix with /v1",
      { given: "https://gateway.example/compute/v1", want: 'give the origin, "https://gateway.example/compute"' },
    ],
    [
      "no scheme",
      {
        given: "127.0.0.1:4010",
        want: 'baseUrl must be an http:// or https:// URL, such as http://127.0.0.1:4010; got "127.0.0.1:4010"',
      },
    ],
    [
      "a host and port without a scheme",
      { given: "localhost:4010", want: 'URL, such as http://127.0.0.1:4010; got "localhost:4010"' },
    ],
    ["another scheme", { given: "ftp://api.example.com", want: "must be an http:// or https:// URL" }],
    ["a scheme without //", { given: "http:api.example.com", want: "must be an http:// or https:// URL" }],
    ["a query", { given: "https://api.example.com?region=eu", want: "must not have a query or fragment" }],
    ["a fragment", { given: "https://api.example.com/#v1", want: "must not have a query or fragment" }],
    ["an empty string", { given: "", want: "baseUrl is missing (it is an empty string)" }],
    ["undefined", { given: undefined, want: "baseUrl is missing (it is undefined)" }],
    ["null", { given: null, want: "baseUrl is missing (it is null)" }],
  ];

  test.each(refused)("%s is refused at creation with a TypeError saying what to give", (_, { given, want }) => {
    const thrown = thrownBy(() => createComputeClient({ baseUrl: given as string, apiKey }));
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toHaveProperty("message", expect.stringMatching(/^compute-api client: baseUrl /));
    expect(thrown).toHaveProperty("message", expect.stringContaining(want));
  });

  test("a user name and password are refused without being quoted", () => {
    const thrown = thrownBy(() => createComputeClient({ baseUrl: "https://user:hunter2@api.example.com", apiKey }));
    expect(thrown).toBeInstanceOf(TypeError);
    expect(String(thrown)).not.toContain("hunter2");
  });

  test.each([
    ["an origin", "https://api.example.com", "https://api.example.com/v1/resources/search?query=alpha"],
    ["an origin with a slash", "http://127.0.0.1:4010/", "http://127.0.0.1:4010/v1/resources/search?query=alpha"],
    [
      "a path prefix",
      "https://gateway.example/compute",
      "https://gateway.example/compute/v1/resources/search?query=alpha",
    ],
    [
      "a prefix that merely ends in v1",
      "https://gateway.example/apiv1",
      "https://gateway.example/apiv1/v1/resources/search?query=alpha",
    ],
  ])("%s is accepted and the spec path goes after it", async (_, baseUrl, url) => {
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({ baseUrl, apiKey, fetch });
    await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
    expect(sent[0]?.url).toBe(url);
  });

  test("a real server's /v1 answers 404 to what such a base would have sent, which is why it is refused", async () => {
    // Regression: with baseUrl ending in /v1 every call went to /v1/v1/… and came back 404 `not found`, silently.
    const server = await startLocalServer((request, response) => {
      response.statusCode = request.url?.startsWith("/v1/v1/") ? 404 : 200;
      response.end();
    });
    try {
      expect(() => createComputeClient({ baseUrl: `${server.url}/v1`, apiKey })).toThrow(/ends in \/v1/);
      const client = createComputeClient({ baseUrl: server.url, apiKey, retry: false });
      const { response } = await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
      expect(response.status).toBe(200);
      expect(server.received.map((request) => request.url)).toEqual(["/v1/resources/search?query=alpha"]);
    } finally {
      await server.close();
    }
  });
});
