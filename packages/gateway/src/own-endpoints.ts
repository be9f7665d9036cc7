/** The gateway's own endpoints, outside /v1: liveness, readiness and Prometheus metrics. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pathOf, shuttingDown } from "@compute-api/contract";
import { upstreamNotReady } from "./gateway-errors.js";
import { sendError, sendJson } from "./responses.js";
import type { Upstream } from "./upstream.js";

/** One of the gateway's own endpoints: it answers the request. */
export type Endpoint = (res: ServerResponse) => void | Promise<void>;

/**
 * Returns the finder of the gateway's own endpoints, `GET /healthz` (the gateway is up), `GET /readyz` (the
 * upstream answers and the gateway is not draining) and `GET /metrics`: the endpoint a request is for, or
 * undefined for any other request.
 */
export function ownEndpoints(
  upstream: Upstream,
  metricsText: () => Promise<string>,
  contentType: string,
  draining: () => boolean,
): (req: IncomingMessage) => Endpoint | undefined {
  const endpoints = new Map<string, Endpoint>([
    ["/healthz", (res) => sendJson(res, 200, { status: "ok" })],
    [
      "/readyz",
      async (res) => {
        if (draining()) {
          return sendError(res, shuttingDown("gateway"));
        }
        if (await upstream.ping()) return sendJson(res, 200, { status: "ready" });
        sendError(res, upstreamNotReady());
      },
    ],
    [
      "/metrics",
      async (res) => {
        const text = await metricsText();
        res.setHeader("content-type", contentType);
        res.end(text);
      },
    ],
  ]);
  return (req) => (req.method === "GET" || req.method === "HEAD" ? endpoints.get(pathOf(req.url ?? "")) : undefined);
}
