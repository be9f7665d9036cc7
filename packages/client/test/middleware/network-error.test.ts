import type { IncomingMessage, ServerResponse } from "node:http";
import { beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { ComputeApiError, ComputeNetworkError, createComputeClient } from "../../src/index.js";
import { exposedText } from "../support/fake-fetch.js";
import { closedPortUrl, startLocalServer } from "../support/local-server.js";

const apiKey = "cak_3q2-XQx0mXlY1b5nM4wT8e7rK9sZpA6cV0dF2gH4jL8";
const search = { params: { query: { query: "alpha" } } };
const machine = {
  params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
  body: { powerState: "ON" },
} as const;

/** What `pending` rejects with; fails the test when it resolves. */
async function rejection(pending: Promise<unknown>): Promise<unknown> {
  return pending.then(
    () => expect.unreachable("the call resolved"),
    (error: unknown) => error,
  );
}

describe("network error middleware", () => {
  describe("a refused connection (ECONNREFUSED, a closed port of 127.0.0.1)", () => {
    let baseUrl: string;
    beforeAll(async () => {
      baseUrl = await closedPortUrl();
    });

    test.each([
      [
        "GET",
        "/v1/resources/search",
        (client: ReturnType<typeof createComputeClient>) => client.GET("/v1/resources/search", search),
      ],
      [
        "POST",
        "/v1/api-keys",
        (client: ReturnType<typeof createComputeClient>) =>
          client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key" } }),
      ],
      [
        "PATCH",
        "/v1/projects/{projectId}/cluster-machines/{id}",
        (client: ReturnType<typeof createComputeClient>) =>
          client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", machine),
      ],
    ])("%s %s throws a ComputeNetworkError naming the base URL and the code", async (method, path, call) => {
      const client = createComputeClient({ baseUrl, apiKey });
      const thrown = await rejection(call(client));
      expect(thrown).toBeInstanceOf(ComputeNetworkError);
      expect(thrown).not.toBeInstanceOf(ComputeApiError);
      expect(thrown).toMatchObject({
        name: "ComputeNetworkError",
        message: `compute-api client: ${method} ${path} got no response from ${baseUrl} (ECONNREFUSED)`,
        baseUrl,
        method,
        path,
        code: "ECONNREFUSED",
      });
      // The cause is what fetch rejected with, as it was: Node's `TypeError: fetch failed`.
      expect((thrown as Error).cause).toMatchObject({ name: "TypeError", message: "fetch failed" });
      expect(exposedText(thrown)).not.toContain(apiKey);
    });
  });

  // Each test has a server of its own: a request of an earlier test can still reach a shared server after that test
  // ended (a client's timeout or abort does not take back what the kernel already sent), and would be answered with
  // the next test's behaviour — the 503 below, closing the port while this test's own request was still connecting.
  describe("against a server that misbehaves", () => {
    /** A server of this test alone, answering every request with `handle`; stopped when the test ends. */
    async function serverOfThisTest(handle: (request: IncomingMessage, response: ServerResponse) => void) {
      const server = await startLocalServer(handle);
      onTestFinished(() => server.close());
      return server;
    }
    /** Holds every request until the client gives up. */
    const holdForever = () => {};

    test("a connection closed before any answer throws a ComputeNetworkError; a PATCH is not sent again", async () => {
      const server = await serverOfThisTest((request) => request.socket.destroy());
      const client = createComputeClient({ baseUrl: server.url, apiKey });
      const thrown = await rejection(client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", machine));
      expect(thrown).toBeInstanceOf(ComputeNetworkError);
      expect(thrown).toHaveProperty("code", "UND_ERR_SOCKET");
      expect(thrown).toHaveProperty("message", expect.stringContaining(`got no response from ${server.url}`));
      expect(server.received).toHaveLength(1);
    });

    test("a timeout stays the timeout's TimeoutError, not a network error", async () => {
      const server = await serverOfThisTest(holdForever);
      const client = createComputeClient({ baseUrl: server.url, apiKey, timeoutMs: 50 });
      const thrown = await rejection(client.GET("/v1/resources/search", search));
      expect(thrown).toHaveProperty("name", "TimeoutError");
      expect(thrown).not.toBeInstanceOf(ComputeNetworkError);
    });

    test("a caller's abort stays the caller's reason", async () => {
      const server = await serverOfThisTest(holdForever);
      const client = createComputeClient({ baseUrl: server.url, apiKey, timeoutMs: 0 });
      const controller = new AbortController();
      const pending = client.GET("/v1/resources/search", { ...search, signal: controller.signal });
      setTimeout(() => controller.abort(new Error("caller gave up")), 20);
      expect(await rejection(pending)).toEqual(new Error("caller gave up"));
    });

    test("a retried GET that finds the server gone throws the same network error", async () => {
      // The port is closed before the 503 is written, so the retry, sent only after the 503 arrived, finds it closed.
      const server = await serverOfThisTest((_, response) => {
        server.stopListening();
        response.writeHead(503, { "Content-Type": "application/json", Connection: "close" });
        response.end('{"code":503,"message":"unavailable"}');
      });
      const client = createComputeClient({ baseUrl: server.url, apiKey, retry: { baseDelayMs: 50 } });
      const thrown = await rejection(client.GET("/v1/resources/search", search));
      expect(thrown).toBeInstanceOf(ComputeNetworkError);
      expect(thrown).toMatchObject({ method: "GET", path: "/v1/resources/search", code: "ECONNREFUSED" });
      expect(server.received).toHaveLength(1);
    });
  });

  test("an injected fetch that rejects is wrapped too, its error kept as the cause", async () => {
    const failed = new Error("the tracer's fetch broke");
    const client = createComputeClient({
      baseUrl: "https://compute.example",
      apiKey,
      fetch: () => Promise.reject(failed),
    });
    const thrown = await rejection(client.GET("/v1/resources/search", search));
    expect(thrown).toMatchObject({
      message:
        "compute-api client: GET /v1/resources/search got no response from https://compute.example (Error: the tracer's fetch broke)",
      cause: failed,
      code: undefined,
    });
  });
});
