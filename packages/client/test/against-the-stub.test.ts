/**
 * The README's "Try it against the stub", as a new user goes through it: the client pointed at the stub's origin
 * with the key it was started with, what a wrong key, a base ending in /v1 and a stopped stub give. The stub is the
 * real one, on an ephemeral port of 127.0.0.1.
 */
import { type RunningStub, startServer } from "@compute-api/stub-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ComputeApiError, ComputeNetworkError, createComputeClient, unwrap } from "../src/index.js";
import { thrownBy } from "./support/fake-fetch.js";

const key = "cak_first-hour-alice";
const search = { params: { query: { query: "type:cluster" } } };
let stub: RunningStub;

beforeAll(async () => {
  stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: { alice: key } });
});
afterAll(() => stub?.close());

describe("the client against the stub", () => {
  test("the stub's origin and its key: the search answers", async () => {
    const client = createComputeClient({ baseUrl: stub.url, apiKey: key });
    const { results } = unwrap(await client.GET("/v1/resources/search", search));
    expect(results.length).toBeGreaterThan(0);
  });

  test("a wrong key: 401 in response.status and error.code, and in ComputeApiError.status once unwrapped", async () => {
    const client = createComputeClient({ baseUrl: stub.url, apiKey: "cak_not-a-key-of-the-stub" });
    const result = await client.GET("/v1/resources/search", search);
    expect(result.response.status).toBe(401);
    expect(result.error?.code).toBe(401);
    const thrown = thrownBy(() => unwrap(result));
    expect(thrown).toBeInstanceOf(ComputeApiError);
    expect(thrown).toHaveProperty("status", 401);
  });

  test("the stub's URL with /v1 is refused at creation, naming the origin to give", () => {
    expect(() => createComputeClient({ baseUrl: `${stub.url}/v1`, apiKey: key })).toThrow(
      `give the origin, "${stub.url}"`,
    );
  });

  test("a stopped stub: a ComputeNetworkError naming its URL and ECONNREFUSED", async () => {
    const stopped = await startServer({ port: 0, host: "127.0.0.1", apiKeys: { alice: key } });
    await stopped.close();
    const client = createComputeClient({ baseUrl: stopped.url, apiKey: key });
    const thrown = await client.GET("/v1/resources/search", search).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ComputeNetworkError);
    expect(thrown).toHaveProperty("message", expect.stringContaining(`from ${stopped.url} (ECONNREFUSED)`));
  });
});
