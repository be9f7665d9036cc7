/**
 * The gateway in front of backends that close idle keep-alive connections, as production backends do: Debian's
 * nginx reverse-proxying the stub (gzip on, keepalive_timeout 2 s) and a node:http backend with a 1 s
 * keepAliveTimeout. Bursts of GETs and PATCHes are sent after idle gaps around the backend's timeout, the moment
 * a backend closes a connection the gateway may be writing on: none may fail, and no PATCH may reach the
 * backend twice. Then nginx closes every reused connection under its request, for certain: the GETs are sent
 * again on a new connection and counted, a PATCH is answered 502 and never sent twice.
 */
import { createServer, type Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { createGateway, type Gateway } from "@compute-api/gateway";
import { type Nginx, skipWithoutNginx, startNginx } from "@compute-api/test-support/nginx";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, counter, failures, type LoggedStub, type Outcome, patchedTwice, startLoggedStub } from "./support.js";

/** A gateway on an ephemeral port. */
async function startGateway(
  upstream: string,
  upstreamKeepAliveTimeoutMs?: number,
): Promise<{ gateway: Gateway; server: Server; url: string }> {
  const gateway = await createGateway({
    upstream,
    ...(upstreamKeepAliveTimeoutMs === undefined ? {} : { upstreamKeepAliveTimeoutMs }),
    logger: (await import("@compute-api/runtime")).createLogger({ level: "silent" }),
  });
  const server = createServer(gateway.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { gateway, server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/**
 * Sends `bursts` bursts of `size` requests at once, GETs and PATCHes in turn, each after an idle gap that steps
 * across `edgeMs`, the backend's keep-alive timeout, from 60 ms short of it to 60 ms past it.
 */
async function burstsAtTheEdge(
  base: string,
  edgeMs: number,
  { bursts, size }: { bursts: number; size: number },
): Promise<Outcome[]> {
  const agent = new Agent({ connections: size, keepAliveTimeout: 60_000 });
  const outcomes: Outcome[] = [];
  try {
    for (let burst = 0; burst < bursts; burst++) {
      const sent = Array.from({ length: size }, (_, i) =>
        call(agent, base, i % 2 === 1 ? "PATCH" : "GET", `edge${edgeMs}`),
      );
      outcomes.push(...(await Promise.all(sent)));
      await sleep(edgeMs - 60 + Math.round((120 * burst) / Math.max(1, bursts - 1)));
    }
  } finally {
    await agent.close();
  }
  return outcomes;
}

describe.skipIf(skipWithoutNginx())("the gateway in front of backends that close idle connections", () => {
  let behindNginx: LoggedStub;
  let nodeBackend: LoggedStub;
  let nginx: Nginx;

  beforeAll(async () => {
    behindNginx = await startLoggedStub();
    nodeBackend = await startLoggedStub(1000);
    nginx = await startNginx(
      (port) => `
        upstream stub { server 127.0.0.1:${behindNginx.port}; keepalive 32; }
        keepalive_timeout 2s;
        gzip on; gzip_types application/json; gzip_min_length 0; gzip_proxied any;
        server {
          listen 127.0.0.1:${port};
          location / { proxy_pass http://stub; proxy_http_version 1.1; proxy_set_header Connection ""; }
        }`,
    );
  });
  afterAll(async () => {
    await nginx?.stop();
    await behindNginx?.close();
    await nodeBackend?.close();
  });

  it.concurrent.each([
    ["nginx (keepalive_timeout 2 s, gzip)", () => nginx.url, 2000, () => behindNginx],
    ["node:http (keepAliveTimeout 1 s)", () => nodeBackend.url, 1000, () => nodeBackend],
  ])(
    "%s: bursts of GETs and PATCHes at the keep-alive edge all succeed, each PATCH applied once",
    async (_name, url, edgeMs, stub) => {
      const { gateway, server, url: base } = await startGateway(url());
      try {
        const outcomes = await burstsAtTheEdge(base, edgeMs, { bursts: 7, size: 16 });
        expect(failures(outcomes)).toEqual({});
        expect(outcomes.filter((o) => o.method === "PATCH")).toHaveLength(7 * 8);
        expect(patchedTwice(stub())).toEqual([]);
        const metrics = await gateway.metrics.registry.metrics();
        // PATCHes are never retried, whatever happened to their connection.
        expect(counter(metrics, "gateway_upstream_retries_total", { operation_id: "updateClusterMachine" })).toBe(0);
      } finally {
        server.closeAllConnections();
        server.close();
        await gateway.close();
      }
    },
    360_000,
  );

  it("nginx closing each reused connection under the request (return 444): GETs are sent again on a new connection and counted, PATCHes never", async () => {
    // A real nginx that closes, without an answer, every request that comes on a connection it already served:
    // the race of a backend closing an idle connection just as a request is written on it, made certain.
    const closing = await startNginx(
      (port) => `
        upstream stub { server 127.0.0.1:${behindNginx.port}; }
        server {
          listen 127.0.0.1:${port};
          location / {
            if ($connection_requests != 1) { return 444; }
            proxy_pass http://stub;
          }
        }`,
    );
    const { gateway, server, url: base } = await startGateway(closing.url, 10_000);
    const agent = new Agent({ connections: 1 });
    try {
      const outcomes: Outcome[] = [];
      for (const method of ["GET", "GET", "GET", "GET", "PATCH", "PATCH"] as const) {
        outcomes.push(await call(agent, base, method, "closing"));
        // Long enough for the gateway's pool to take its connection back as idle, so the next request reuses it.
        await sleep(50);
      }
      // Each second request met a reused connection: the GETs went again on a new one, the PATCH was refused 502.
      expect(outcomes.map((o) => `${o.method} ${o.status}`)).toEqual([
        "GET 200",
        "GET 200",
        "GET 200",
        "GET 200",
        "PATCH 200",
        "PATCH 502",
      ]);
      const metrics = await gateway.metrics.registry.metrics();
      expect(
        counter(metrics, "gateway_upstream_retries_total", {
          operation_id: "searchResources",
          reason: "connection_closed",
        }),
      ).toBe(2);
      expect(counter(metrics, "gateway_upstream_retries_total", { operation_id: "updateClusterMachine" })).toBe(0);
      // The PATCH that met the closed connection never reached the stub.
      const failed = outcomes.at(-1)!.id;
      expect(behindNginx.logs.filter((line) => line.reqId === failed)).toEqual([]);
    } finally {
      await agent.close();
      server.closeAllConnections();
      server.close();
      await gateway.close();
      await closing.stop();
    }
  }, 360_000);
});
