/**
 * The typed client's retry and timeout middleware against the real stub's faults, not only an injected fetch:
 * a GET answered 429 (the stub's rate limit) or 503 (`Prefer: code=503`) is retried after the `Retry-After` and
 * RetryInfo the stub sends, a PATCH or POST never is, and a slow answer (`Prefer: latency=…`) ends in a timeout.
 * The stub's request log counts what reached it.
 */
import { createComputeClient } from "@compute-api/client";
import { type FaultOptions, type RunningStub, startServer } from "@compute-api/stub-server";
import { captureLogs } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const key = "cak_resilience-alice";
let stub: RunningStub;
let limited: RunningStub;
const { lines, logger } = captureLogs<{ reqId: string; fault?: string; res: { status: number } }>();

/** A stub whose log lines land in `lines`. */
function start(faults: FaultOptions): Promise<RunningStub> {
  return startServer({
    port: 0,
    host: "127.0.0.1",
    apiKeys: { alice: key },
    logger,
    faults,
  });
}

beforeAll(async () => {
  // One request per 5 s: a second one right after the first is over it however busy the machine, and the stub
  // asks for a wait of 5 s (Retry-After), within the client's maxDelayMs.
  [stub, limited] = await Promise.all([start({}), start({ rateLimit: 1 / 5 })]);
});
afterAll(async () => {
  await Promise.all([stub?.close(), limited?.close()]);
});

/** The stub's log lines of one request id (the client sends the same id on every attempt). */
const attempts = (id: string) => lines.filter((l) => l.reqId === id);

describe("the client against the stub's faults", () => {
  it("retries a GET the rate limit refused, after the Retry-After the stub sent, and gets its answer", async () => {
    const client = createComputeClient({
      baseUrl: limited.url,
      apiKey: key,
      headers: { "x-request-id": "rate-limited" },
    });
    expect((await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } })).response.status).toBe(
      200,
    );
    const started = performance.now();
    const { response, data } = await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
    expect(response.status).toBe(200);
    expect(data?.results.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4950);
    await expect
      .poll(() => attempts("rate-limited").map((l) => l.fault ?? l.res.status))
      .toEqual([200, "rate-limit", 200]);
  });

  it("retries a GET answered 503 until its attempts run out, waiting as the stub asks each time", async () => {
    const client = createComputeClient({
      baseUrl: stub.url,
      apiKey: key,
      retry: { maxAttempts: 2 },
      headers: { prefer: "code=503", "x-request-id": "unavailable" },
    });
    const started = performance.now();
    const { response, error } = await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
    expect(response.status).toBe(503);
    expect(error?.details).toContainEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    await expect.poll(() => attempts("unavailable").length).toBe(2);
  });

  // Concurrently: each waits past the Retry-After to show that no second attempt comes.
  it.concurrent.each([
    ["PATCH", 503],
    ["POST", 429],
  ])("never retries a %s, even answered %i with Retry-After", async (method, status) => {
    const id = `no-retry-${method}`;
    const client = createComputeClient({
      baseUrl: stub.url,
      apiKey: key,
      headers: { prefer: `code=${status}`, "x-request-id": id },
    });
    const { response } =
      method === "PATCH"
        ? await client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
            params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
            body: { state: "ACTIVE" },
          })
        : await client.POST("/v1/api-keys", { body: { apikeyId: "never-retried" } });
    expect(response.status).toBe(status);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(attempts(id)).toHaveLength(1);
  });

  it("gives up on an answer slower than its timeout with a TimeoutError", async () => {
    const client = createComputeClient({
      baseUrl: stub.url,
      apiKey: key,
      timeoutMs: 300,
      // An answer decisively slower than the timeout: a call that waited for it would end with its 200.
      headers: { prefer: "latency=30000" },
    });
    const thrown = await client
      .GET("/v1/resources/search", { params: { query: { query: "alpha" } } })
      .catch((error: unknown) => error);
    expect(thrown).toHaveProperty("name", "TimeoutError");
  });

  it("counts the waits between retries in its timeout", async () => {
    const client = createComputeClient({
      baseUrl: stub.url,
      apiKey: key,
      timeoutMs: 500,
      headers: { prefer: "code=503" },
    });
    const thrown = await client
      .GET("/v1/resources/search", { params: { query: { query: "alpha" } } })
      .catch((error: unknown) => error);
    expect(thrown).toHaveProperty("name", "TimeoutError");
  });
});
