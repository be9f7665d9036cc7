import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { createComputeClient, type RetryOptions } from "../../src/index.js";
import { type Answer, failure, fakeFetch, json, thrownBy } from "../support/fake-fetch.js";

const baseUrl = "https://compute.example";
const apiKey = "test-key";
const search = { params: { query: { query: "alpha" } } };
const ok = json(200, { results: [] });
const retryInfo = (retryDelay: string) => ({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay });

// Waits run on fake timers, so delays of seconds take no time and `sent[i].at` differences are the exact waits.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Moves fake time forward until `pending` settles. */
async function settle<T>(pending: Promise<T>): Promise<T> {
  let settled = false;
  pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let step = 0; !settled && step < 1_000; step++) await vi.advanceTimersToNextTimerAsync();
  return pending;
}

function setUp(retry: RetryOptions | false, ...answers: Answer[]) {
  const { fetch, sent } = fakeFetch(...answers);
  const client = createComputeClient({ baseUrl, apiKey, fetch, retry, timeoutMs: 0 });
  const waits = () => sent.slice(1).map((request, i) => request.at - (sent[i]?.at ?? 0));
  return { client, sent, waits };
}

describe("retry middleware", () => {
  test.each([429, 503])("a GET answered with %i is retried until it succeeds", async (status) => {
    const { client, sent } = setUp({}, failure(status), failure(status), ok);
    const { data } = await settle(client.GET("/v1/resources/search", search));
    expect(data).toEqual({ results: [] });
    expect(sent).toHaveLength(3);
  });

  test.each([
    ["the default of 3 attempts", {}, 3],
    ["maxAttempts 5", { maxAttempts: 5 }, 5],
    ["maxAttempts 1 (no retry)", { maxAttempts: 1 }, 1],
  ] as const)("retries run out after %s, and the last error body is returned", async (_, retry, attempts) => {
    const { client, sent } = setUp(retry, failure(503));
    const { error, response } = await settle(client.GET("/v1/resources/search", search));
    expect(sent).toHaveLength(attempts);
    expect(response.status).toBe(503);
    expect(error).toEqual({ code: 503, message: "failed with 503", details: [] });
  });

  test("the backoff doubles from baseDelayMs, with jitter of at most half of it", async () => {
    const { client, waits } = setUp({ maxAttempts: 4, baseDelayMs: 100 }, failure(503));
    await settle(client.GET("/v1/resources/search", search));
    const [first, second, third] = waits();
    expect(first).toBeGreaterThanOrEqual(50);
    expect(first).toBeLessThanOrEqual(100);
    expect(second).toBeGreaterThanOrEqual(100);
    expect(second).toBeLessThanOrEqual(200);
    expect(third).toBeGreaterThanOrEqual(200);
    expect(third).toBeLessThanOrEqual(400);
  });

  test("the backoff is capped at maxDelayMs", async () => {
    const { client, waits } = setUp({ maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 150 }, failure(503));
    await settle(client.GET("/v1/resources/search", search));
    expect(waits()).toHaveLength(5);
    for (const wait of waits()) expect(wait).toBeLessThanOrEqual(150);
  });

  test("the jitter spreads clients that failed together", async () => {
    const firstWaits = new Set<number>();
    for (let i = 0; i < 10; i++) {
      const { client, waits } = setUp({ baseDelayMs: 10_000, maxDelayMs: 10_000 }, failure(503), ok);
      await settle(client.GET("/v1/resources/search", search));
      firstWaits.add(waits()[0] ?? -1);
    }
    expect(firstWaits.size).toBeGreaterThan(1);
  });

  test.each([
    ["Retry-After in seconds", failure(429, [], { "Retry-After": "2" }), 2_000],
    ["a RetryInfo detail", failure(503, [retryInfo("1.5s")]), 1_500],
    ["a RetryInfo detail with nanoseconds", failure(503, [retryInfo("0.250000000s")]), 250],
    ["both, the longer one winning", failure(503, [retryInfo("2.5s")], { "Retry-After": "1" }), 2_500],
  ])("the wait honours %s", async (_, answer, wait) => {
    const { client, sent, waits } = setUp({ baseDelayMs: 1 }, answer, ok);
    await settle(client.GET("/v1/resources/search", search));
    expect(sent).toHaveLength(2);
    expect(waits()[0]).toBe(wait);
  });

  test("Retry-After as an HTTP date is honoured", async () => {
    const at = new Date(Date.now() + 3_000).toUTCString();
    const { client, waits } = setUp({ baseDelayMs: 1 }, failure(429, [], { "Retry-After": at }), ok);
    await settle(client.GET("/v1/resources/search", search));
    // HTTP dates have whole seconds, so the wait is up to a second shorter than the three asked for.
    expect(waits()[0]).toBeGreaterThan(2_000);
    expect(waits()[0]).toBeLessThanOrEqual(3_000);
  });

  test("the backoff still applies when the server asks for less", async () => {
    const { client, waits } = setUp({ baseDelayMs: 400 }, failure(503, [retryInfo("0.1s")]), ok);
    await settle(client.GET("/v1/resources/search", search));
    expect(waits()[0]).toBeGreaterThanOrEqual(200);
  });

  test("a server asking for a longer wait than maxDelayMs gets its answer returned at once", async () => {
    const { client, sent } = setUp({ maxDelayMs: 5_000 }, failure(429, [], { "Retry-After": "60" }), ok);
    const { response } = await settle(client.GET("/v1/resources/search", search));
    expect(response.status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  test("a malformed RetryInfo or Retry-After is ignored in favour of the backoff", async () => {
    const { client, waits } = setUp(
      { baseDelayMs: 100 },
      failure(503, [retryInfo("soon"), { "@type": "type.googleapis.com/google.rpc.RetryInfo" }], {
        "Retry-After": "later",
      }),
      ok,
    );
    await settle(client.GET("/v1/resources/search", search));
    expect(waits()[0]).toBeLessThanOrEqual(100);
  });

  test("PATCH is never retried", async () => {
    const { client, sent } = setUp({ maxAttempts: 5 }, failure(503), ok);
    const { response } = await settle(
      client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
        params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
        body: { powerState: "OFF" },
      }),
    );
    expect(response.status).toBe(503);
    expect(sent).toHaveLength(1);
  });

  test("POST is never retried", async () => {
    const { client, sent } = setUp({ maxAttempts: 5 }, failure(429, [retryInfo("0.1s")]), ok);
    const { response } = await settle(client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key" } }));
    expect(response.status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  test.each([400, 401, 500, 502, 504])("a GET answered with %i is not retried", async (status) => {
    const { client, sent } = setUp({}, failure(status), ok);
    await settle(client.GET("/v1/resources/search", search));
    expect(sent).toHaveLength(1);
  });

  test("retry: false turns retries off", async () => {
    const { client, sent } = setUp(false, failure(503), ok);
    await settle(client.GET("/v1/resources/search", search));
    expect(sent).toHaveLength(1);
  });

  test.each([
    ["maxAttempts 0", { maxAttempts: 0 }],
    ["maxAttempts 1.5", { maxAttempts: 1.5 }],
    ["a negative baseDelayMs", { baseDelayMs: -1 }],
  ])("%s is refused", (_, retry) => {
    expect(thrownBy(() => createComputeClient({ baseUrl, apiKey, retry }))).toBeInstanceOf(RangeError);
  });
});
