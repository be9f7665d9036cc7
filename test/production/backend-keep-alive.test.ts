/**
 * The gateway in front of backends that close idle keep-alive connections, as production backends do: Debian's
 * nginx reverse-proxying the stub (gzip on, keepalive_timeout 2 s) and a node:http backend with a 1 s
 * keepAliveTimeout. Bursts of GETs and PATCHes are sent after idle gaps around the backend's timeout, the moment
 * a backend closes a connection the gateway may be writing on: none may fail, no PATCH may reach the backend
 * twice, and with an idle time set longer than the backend's (a misconfiguration) the GETs that met a closed
 * connection are retried and counted.
 */
import { createServer, type Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { createGateway, type Gateway } from "@compute-api/gateway";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipWithoutNginx, startNginx, type Nginx } from "../support/nginx.js";
import { call, counter, failures, startLoggedStub, type LoggedStub, type Outcome } from "./support.js";

/** A gateway on an ephemeral port. */
async function startGateway(upstream: string, upstreamKeepAliveTimeoutMs?: number): Promise<{ gateway: Gateway; server: Server; url: string }> {
  const gateway = await createGateway({
    upstream,
    ...(upstreamKeepAliveTimeoutMs === undefined ? {} : { upstreamKeepAliveTimeoutMs }),
    logger: (await import("@compute-api/contract")).createLogger({ level: "silent" }),
  });
  const server = createServer(gateway.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { gateway, server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/**
 * Sends `bursts` bursts of `size` requests at once (GETs, and PATCHes when `patches`), each after an idle gap that
 * steps across `edgeMs`, the backend's keep-alive timeout, in `steps` steps over `spreadMs`; stops early once
 * `enough()` says so.
 */
async function burstsAtTheEdge(
  base: string,
  edgeMs: number,
  options: { bursts: number; size: number; patches: boolean; spreadMs?: number; steps?: number; enough?: () => Promise<boolean> },
): Promise<Outcome[]> {
  const { bursts, size, patches, spreadMs = 120, steps = bursts, enough } = options;
  const agent = new Agent({ connections: size, keepAliveTimeout: 60_000 });
  const outcomes: Outcome[] = [];
  try {
    for (let burst = 0; burst < bursts; burst++) {
      const sent = Array.from({ length: size }, (_, i) => call(agent, base, patches && i % 2 === 1 ? "PATCH" : "GET", `edge${edgeMs}`));
      outcomes.push(...(await Promise.all(sent)));
      if (await enough?.()) break;
      // Gaps from spreadMs/2 short of the edge to spreadMs/2 past it, in even steps.
      await sleep(edgeMs - spreadMs / 2 + Math.round((spreadMs * (burst % steps)) / Math.max(1, steps - 1)));
    }
  } finally {
    await agent.close();
  }
  return outcomes;
}

/** PATCHes the backend received more than once, by request id. */
function patchedTwice(stub: LoggedStub): string[] {
  const seen = new Map<string, number>();
  for (const line of stub.logs) if (line.req?.method === "PATCH" && line.reqId) seen.set(line.reqId, (seen.get(line.reqId) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
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
  ])("%s: bursts of GETs and PATCHes at the keep-alive edge all succeed, each PATCH applied once", async (_name, url, edgeMs, stub) => {
    const { gateway, server, url: base } = await startGateway(url());
    try {
      const outcomes = await burstsAtTheEdge(base, edgeMs, { bursts: 7, size: 16, patches: true });
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
  }, 120_000);

  it("with an idle time longer than nginx's (10 s), GETs that meet a closed connection are retried, and none fails", async () => {
    const { gateway, server, url: base } = await startGateway(nginx.url, 10_000);
    const retries = async () => counter(await gateway.metrics.registry.metrics(), "gateway_upstream_retries_total", { operation_id: "searchResources" });
    try {
      // The race is a matter of microseconds: about one burst in three meets it. Bursts go on until three retries
      // were seen (at most 30 bursts, a minute), none of them may fail.
      const enough = async () => (await retries()) >= 3;
      const outcomes = await burstsAtTheEdge(base, 2000, { bursts: 30, size: 24, patches: false, spreadMs: 20, steps: 10, enough });
      expect(failures(outcomes)).toEqual({});
      const metrics = await gateway.metrics.registry.metrics();
      const retried = await retries();
      expect(retried, "the retries metric counts the GETs sent again").toBeGreaterThanOrEqual(3);
      expect(counter(metrics, "gateway_upstream_retries_total")).toBe(retried);
    } finally {
      server.closeAllConnections();
      server.close();
      await gateway.close();
    }
  }, 120_000);
});
