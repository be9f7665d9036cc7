import { describe, expect, test } from "vitest";
import { createComputeClient } from "../src/index.js";
import { failure, fakeFetch, json } from "./support/fake-fetch.js";

const apiKey = "test-key";
const machine = { id: "cm-alpha-01", projectId: "proj-alpha", powerState: "ON", priceHr: { value: "2.5" } };

describe("createComputeClient", () => {
  test("PATCH sends the path parameters and the JSON body, and returns the machine", async () => {
    const { fetch, sent } = fakeFetch(json(200, machine));
    const client = createComputeClient({ baseUrl: "https://compute.example", apiKey, fetch });
    const { data, error } = await client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
      body: { powerState: "ON", priceHr: { value: "2.5" } },
    });
    expect(error).toBeUndefined();
    expect(data).toEqual(machine);
    expect(sent[0]).toMatchObject({
      method: "PATCH",
      url: "https://compute.example/v1/projects/proj-alpha/cluster-machines/cm-alpha-01",
      body: '{"powerState":"ON","priceHr":{"value":"2.5"}}',
    });
    expect(sent[0]?.headers.get("Content-Type")).toBe("application/json");
  });

  test("POST creates an API key", async () => {
    const created = { id: "ci-deploy-key", createTime: "2026-11-22T08:00:00Z", key: "cak_new" };
    const { fetch, sent } = fakeFetch(json(200, created));
    const client = createComputeClient({ baseUrl: "https://compute.example", apiKey, fetch });
    const { data } = await client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key" } });
    expect(data).toEqual(created);
    expect(sent[0]).toMatchObject({
      method: "POST",
      url: "https://compute.example/v1/api-keys",
      body: '{"apikeyId":"ci-deploy-key"}',
    });
  });

  test("GET encodes the search query", async () => {
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({ baseUrl: "https://compute.example/", apiKey, fetch });
    const { data } = await client.GET("/v1/resources/search", { params: { query: { query: "type:cluster a&b" } } });
    expect(data).toEqual({ results: [] });
    expect(sent[0]).toMatchObject({
      method: "GET",
      url: "https://compute.example/v1/resources/search?query=type%3Acluster%20a%26b",
      body: "",
    });
  });

  test("a failure is returned as { error, response }, not thrown", async () => {
    const violation = { field: "apikeyId", description: "must match ^[a-z0-9-]{4,63}$", reason: "pattern" };
    const badRequest = { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [violation] };
    const { fetch } = fakeFetch(failure(400, [badRequest]));
    const client = createComputeClient({ baseUrl: "https://compute.example", apiKey, fetch });
    const { data, error, response } = await client.POST("/v1/api-keys", { body: { apikeyId: "NO" } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error).toEqual({ code: 400, message: "failed with 400", details: [badRequest] });
  });

  test("the headers option is sent with every request", async () => {
    const { fetch, sent } = fakeFetch(json(200, { results: [] }));
    const client = createComputeClient({
      baseUrl: "https://compute.example",
      apiKey,
      fetch,
      headers: { "X-Request-Source": "ci" },
    });
    await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
    expect(sent[0]?.headers.get("X-Request-Source")).toBe("ci");
  });
});
