import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test, vi } from "vitest";
import { createComputeClient } from "../../src/index.js";
import { failure, fakeFetch, json, never, thrownBy } from "../support/fake-fetch.js";

const baseUrl = "https://compute.example";
const apiKey = "test-key";
const search = { params: { query: { query: "alpha" } } };

describe("timeout middleware", () => {
  test("aborts a call the service does not answer in time with a TimeoutError", async () => {
    const { fetch, sent } = fakeFetch(never);
    const client = createComputeClient({ baseUrl, apiKey, fetch, timeoutMs: 20 });
    const started = performance.now();
    const thrown = await client.GET("/v1/resources/search", search).catch((error: unknown) => error);
    expect(thrown).toHaveProperty("name", "TimeoutError");
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
    expect(sent[0]?.request.signal.aborted).toBe(true);
  });

  test("a call answered in time is untouched", async () => {
    const { fetch, sent } = fakeFetch(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return json(200, { results: [] })(request);
    });
    // A timeout far beyond the answer's 5 ms, however busy the machine.
    const client = createComputeClient({ baseUrl, apiKey, fetch, timeoutMs: 60_000 });
    const { data } = await client.GET("/v1/resources/search", search);
    expect(data).toEqual({ results: [] });
    expect(sent[0]?.request.signal.aborted).toBe(false);
  });

  test("the request keeps its body when it gets its signal", async () => {
    const { fetch, sent } = fakeFetch(json(200, { id: "ci-deploy-key", createTime: "2026-11-22T08:00:00Z", key: "k" }));
    const client = createComputeClient({ baseUrl, apiKey, fetch, timeoutMs: 60_000 });
    await client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key" } });
    expect(sent[0]?.body).toBe('{"apikeyId":"ci-deploy-key"}');
  });

  test("the caller's own signal still aborts the call", async () => {
    const { fetch, sent } = fakeFetch(never);
    const client = createComputeClient({ baseUrl, apiKey, fetch, timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = client.GET("/v1/resources/search", { ...search, signal: controller.signal });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    controller.abort(new Error("caller gave up"));
    await expect(pending).rejects.toThrow("caller gave up");
  });

  test("a caller's abort still reaches a call in flight after a garbage collection", { timeout: 60_000 }, async () => {
    // Regression: the timeout's copy of the request did not keep the original alive, and the original's link to
    // the caller's signal is weak, so after a collection the caller's abort was silently lost.
    const script = fileURLToPath(new URL("../support/abort-after-gc.ts", import.meta.url));
    await expect(
      promisify(execFile)(process.execPath, ["--expose-gc", "--import", "tsx", script]),
    ).resolves.toBeDefined();
  });

  test("the time covers retries and their waits: a long Retry-After runs into the timeout", async () => {
    const { fetch, sent } = fakeFetch(failure(503, [], { "Retry-After": "5" }), json(200, { results: [] }));
    const client = createComputeClient({ baseUrl, apiKey, fetch, timeoutMs: 30 });
    const thrown = await client.GET("/v1/resources/search", search).catch((error: unknown) => error);
    expect(thrown).toHaveProperty("name", "TimeoutError");
    expect(sent).toHaveLength(1);
  });

  test.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("timeoutMs %s is refused", (timeoutMs) => {
    expect(thrownBy(() => createComputeClient({ baseUrl, apiKey, timeoutMs }))).toBeInstanceOf(RangeError);
  });
});
