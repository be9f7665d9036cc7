/**
 * forward() between a real caller and a real backend: what goes upstream (method, target, headers, the body as
 * parsed or as received), what comes back, a caller that goes away, and a fault.
 */
import { createServer, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "@compute-api/contract";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ForwardOptions, forward } from "../src/forward.js";
import { createUpstream, type Upstream, type UpstreamResponse } from "../src/upstream.js";
import { json, type TestUpstream, testUpstream } from "./support/servers.js";

let backend: TestUpstream;
let upstream: Upstream;
let front: Listening;
/** How the front server forwards the next request, and what forward() settled with. */
let options: ForwardOptions = {};
let settled: Promise<UpstreamResponse | undefined | ApiError>;

beforeAll(async () => {
  backend = await testUpstream();
  upstream = createUpstream(new URL(backend.url), {
    timeoutMs: 2000,
    maxResponseBytes: 1 << 20,
    connections: 4,
    keepAliveTimeoutMs: 1000,
  });
  front = await listenLocal(
    createServer((req, res) => {
      req.resume();
      settled = forward(upstream, req, res, "req-1", options).then(
        (response) => {
          res.end(response ? `${response.status} ${response.body.toString()}` : "");
          return response;
        },
        (error: ApiError) => {
          res.end(String(error.status));
          return error;
        },
      );
    }),
  );
});
afterAll(async () => {
  await front.close();
  await upstream.close();
  await backend.close();
});

/** Sends one request to the front server and waits for forward() to settle. */
async function send(init: RequestInit & { path?: string }, forwardOptions: ForwardOptions = {}) {
  options = forwardOptions;
  backend.received.length = 0;
  const res = await fetch(`${front.url}${init.path ?? "/v1/resources/search?query=a"}`, init);
  const text = await res.text();
  return { text, outcome: await settled, received: backend.received[0] };
}

describe("forward", () => {
  it.each<[string, { init: RequestInit & { path?: string }; options?: ForwardOptions; want: object }]>([
    [
      "method, path and query as received, with x-request-id",
      {
        init: { path: "/v1/resources/search?query=a%20b&x=1" },
        want: { method: "GET", url: "/v1/resources/search?query=a%20b&x=1" },
      },
    ],
    [
      "the parsed bytes, without the Content-Encoding they came with",
      {
        init: { method: "POST", headers: { "content-encoding": "gzip" }, body: "ignored" },
        options: { parsed: Buffer.from('{"apikeyId":"abcd"}') },
        want: { method: "POST", body: Buffer.from('{"apikeyId":"abcd"}'), encoding: undefined },
      },
    ],
    [
      "the raw bytes, with their Content-Encoding",
      {
        init: { method: "POST", headers: { "content-encoding": "gzip" }, body: "ignored" },
        options: { raw: Buffer.from("raw bytes") },
        want: { method: "POST", body: Buffer.from("raw bytes"), encoding: "gzip" },
      },
    ],
    [
      "the Accept-Encoding the gateway can decode instead of the caller's",
      {
        init: { headers: { "accept-encoding": "zstd, gzip" } },
        options: { acceptEncoding: "gzip" },
        want: { acceptEncoding: "gzip" },
      },
    ],
  ])("sends %s", async (_name, { init, options: forwardOptions, want }) => {
    backend.answer = (_req, res) => json(res, 200, { ok: true });
    const { text, received } = await send(init, forwardOptions);
    expect(text).toBe('200 {"ok":true}');
    expect({
      method: received?.method,
      url: received?.url,
      body: received?.body,
      encoding: received?.headers["content-encoding"],
      acceptEncoding: received?.headers["accept-encoding"],
      requestId: received?.headers["x-request-id"],
    }).toMatchObject({ ...want, requestId: "req-1" });
  });

  it("resolves undefined when the caller goes away, and aborts the backend request", async () => {
    backend.aborted.length = 0;
    backend.received.length = 0;
    backend.answer = () => {}; // never answers
    options = {};
    const caller = request(`${front.url}/v1/resources/search?query=a`);
    caller.on("error", () => {});
    caller.end();
    while (backend.received.length === 0) await sleep(10);
    caller.destroy();
    expect(await settled).toBeUndefined();
    while (backend.aborted.length === 0) await sleep(10);
    expect(backend.aborted).toHaveLength(1);
  });

  it("rejects with the fault's ApiError", async () => {
    backend.answer = (_req, res) => void res.socket?.destroy();
    const { text, outcome } = await send({});
    expect(text).toBe("502");
    expect(outcome).toBeInstanceOf(ApiError);
  });
});
