/**
 * The backend connection against real node:http backends that close or reset a kept-alive connection under the
 * next request, as a backend does when its keep-alive timeout ends just as a request is written: an idempotent
 * request is sent again once on a new connection, a PATCH or POST never is, and the idle time follows the
 * gateway's setting and the backend's Keep-Alive hint.
 */
import { createServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "@compute-api/contract";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { afterEach, describe, expect, it } from "vitest";
import type { RetryReason } from "../src/retry.js";
import { createUpstream, type Upstream } from "../src/upstream.js";
import { auth, json, testGateway } from "./support/servers.js";

/** How the backend treats a request that arrives on a connection that already carried one. */
type OnReuse = "answer" | "close" | "reset";

/** A backend that records which connection each request came on, and closes or resets reused ones. */
async function backend(onReuse: OnReuse, headers: Record<string, string> = {}) {
  const served = new WeakMap<Socket, number>();
  const sockets: Socket[] = [];
  const seen: { method: string; connection: number }[] = [];
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      const count = served.get(req.socket) ?? 0;
      served.set(req.socket, count + 1);
      if (!sockets.includes(req.socket)) sockets.push(req.socket);
      seen.push({ method: req.method ?? "", connection: sockets.indexOf(req.socket) });
      if (count > 0 && onReuse === "close") return void req.socket.destroy();
      if (count > 0 && onReuse === "reset") return void req.socket.resetAndDestroy();
      json(res, 200, { results: [] }, headers);
    });
  });
  server.keepAliveTimeout = 60_000;
  const listening = await listenLocal(server);
  return { ...listening, seen };
}

/** Long enough for the pool to take the first connection back as idle, so that the next request reuses it. */
const settle = 50;

const open: (Listening | Upstream)[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

async function upstreamFor(url: string, keepAliveTimeoutMs = 1000): Promise<Upstream> {
  const upstream = createUpstream(new URL(url), {
    timeoutMs: 2000,
    maxResponseBytes: 1 << 20,
    connections: 4,
    keepAliveTimeoutMs,
  });
  open.push(upstream);
  return upstream;
}

/** Sends one request and records the retries it took. */
async function send(upstream: Upstream, method: string, body?: Buffer) {
  const retries: RetryReason[] = [];
  const exchange = upstream.send({
    method,
    url: "/v1/resources/search?query=a",
    headers: {},
    body,
    onRetry: (reason) => retries.push(reason),
  });
  const outcome = await exchange.response.then(
    (response) => response.status,
    (error: unknown) => error,
  );
  return { outcome, retries };
}

describe("a request on a reused connection that the backend closes", () => {
  it.each<[OnReuse, RetryReason]>([
    ["close", "connection_closed"],
    ["reset", "connection_reset"],
  ])("idempotent: sent again once on a new connection (%s)", async (onReuse, reason) => {
    const server = await backend(onReuse);
    open.push(server);
    const upstream = await upstreamFor(server.url);
    expect((await send(upstream, "GET")).outcome).toBe(200);
    await sleep(settle);
    const second = await send(upstream, "GET");
    expect(second).toEqual({ outcome: 200, retries: [reason] });
    // The first connection carried the first request and the failed second; the retry went on a new one.
    expect(server.seen).toEqual([
      { method: "GET", connection: 0 },
      { method: "GET", connection: 0 },
      { method: "GET", connection: 1 },
    ]);
  });

  it.each(["PATCH", "POST"])("%s: never sent twice; answered 502 UPSTREAM_CONNECTION_LOST", async (method) => {
    const server = await backend("close");
    open.push(server);
    const upstream = await upstreamFor(server.url);
    const body = Buffer.from('{"state":"RUNNING"}');
    expect((await send(upstream, method, body)).outcome).toBe(200);
    await sleep(settle);
    const { outcome, retries } = await send(upstream, method, body);
    expect(retries).toEqual([]);
    expect(outcome).toBeInstanceOf(ApiError);
    expect((outcome as ApiError).status).toBe(502);
    expect((outcome as ApiError).toBody().details).toContainEqual(
      expect.objectContaining({ reason: "UPSTREAM_CONNECTION_LOST" }),
    );
    expect(server.seen.filter((s) => s.method === method)).toHaveLength(2);
  });

  it("a new connection closed before any answer is not retried", async () => {
    const server = await listenLocal((req) => void req.socket.destroy());
    open.push(server);
    const upstream = await upstreamFor(server.url);
    const { outcome, retries } = await send(upstream, "GET");
    expect(retries).toEqual([]);
    expect((outcome as ApiError).status).toBe(502);
  });
});

describe("idle backend connections", () => {
  it.each<[string, { keepAliveTimeoutMs: number; hint?: string; idleMs: number; reused: boolean }]>([
    // Reused: the idle time decisively shorter than the timeout, however busy the machine. Closed: the timeout's
    // timer starts before the wait's, in this process, so it fires first.
    ["kept within the gateway's keep-alive timeout", { keepAliveTimeoutMs: 10_000, idleMs: 300, reused: true }],
    ["closed after the gateway's keep-alive timeout", { keepAliveTimeoutMs: 200, idleMs: 500, reused: false }],
    [
      "closed after the backend's Keep-Alive hint, less 1 s, when it is shorter",
      { keepAliveTimeoutMs: 10_000, hint: "timeout=2", idleMs: 1300, reused: false },
    ],
    [
      "a longer hint does not raise the gateway's timeout",
      { keepAliveTimeoutMs: 300, hint: "timeout=60", idleMs: 600, reused: false },
    ],
  ])("%s", async (_name, { keepAliveTimeoutMs, hint, idleMs, reused }) => {
    const server = await backend("answer", hint ? { "keep-alive": hint } : {});
    open.push(server);
    const upstream = await upstreamFor(server.url, keepAliveTimeoutMs);
    await send(upstream, "GET");
    await sleep(idleMs);
    await send(upstream, "GET");
    expect(server.seen.map((s) => s.connection)).toEqual(reused ? [0, 0] : [0, 1]);
  });
});

describe("the gateway", () => {
  it("counts each retry by operation and reason, and logs it at debug", async () => {
    const server = await backend("close");
    open.push(server);
    const gateway = await testGateway({ upstream: server.url });
    open.push(gateway);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${gateway.url}/v1/resources/search?query=a`, { headers: auth });
      expect(res.status).toBe(200);
      await sleep(settle);
    }
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain(
      'gateway_upstream_retries_total{operation_id="searchResources",reason="connection_closed"} 1',
    );
    expect(gateway.logs).toContainEqual(
      expect.objectContaining({ level: 20, operationId: "searchResources", reason: "connection_closed" }),
    );
  });
});
