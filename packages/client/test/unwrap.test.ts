import { describe, expect, test } from "vitest";
import { ComputeApiError, createComputeClient, unwrap } from "../src/index.js";
import { failure, fakeFetch, json, thrownBy } from "./support/fake-fetch.js";

const search = { params: { query: { query: "alpha" } } };

function clientAnswering(...answers: Parameters<typeof fakeFetch>) {
  const { fetch } = fakeFetch(...answers);
  return createComputeClient({ baseUrl: "https://compute.example", apiKey: "test-key", fetch, retry: false });
}

describe("unwrap", () => {
  test("returns the data of a success", async () => {
    const client = clientAnswering(json(200, { results: [] }));
    expect(unwrap(await client.GET("/v1/resources/search", search))).toEqual({ results: [] });
  });

  test("throws a ComputeApiError built from the error body", async () => {
    const client = clientAnswering(failure(403));
    const result = await client.GET("/v1/resources/search", search);
    const thrown = thrownBy(() => unwrap(result));
    expect(thrown).toBeInstanceOf(ComputeApiError);
    expect(thrown).toMatchObject({ status: 403, code: 403, message: "failed with 403" });
  });

  test("throws for a failure without a body, which openapi-fetch returns as error: undefined", async () => {
    const client = clientAnswering(() => new Response(null, { status: 500, headers: { "Content-Length": "0" } }));
    const result = await client.GET("/v1/resources/search", search);
    expect(result.error).toBeUndefined();
    expect(thrownBy(() => unwrap(result))).toMatchObject({ name: "ComputeApiError", status: 500, code: 500 });
  });
});
