/** The gateway's own endpoints, outside /v1: liveness, readiness and Prometheus metrics. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, errorInfoDetail, type Logger } from "@compute-api/contract";
import { sendError, sendJson } from "./responses.js";
import type { Upstream } from "./upstream.js";

/** Answers `GET /healthz` (the gateway is up), `GET /readyz` (the upstream answers) and `GET /metrics`. */
export type Operations = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Returns the handler of the gateway's own endpoints; it returns false for any other request. */
export function operations(upstream: Upstream, metricsText: () => Promise<string>, contentType: string, logger: Logger): Operations {
  const endpoints = new Map<string, (res: ServerResponse) => void | Promise<void>>([
    ["/healthz", (res) => sendJson(res, 200, { status: "ok" })],
    [
      "/readyz",
      async (res) => {
        if (await upstream.ping()) return sendJson(res, 200, { status: "ready" });
        sendError(res, new ApiError(503, "service unavailable: the upstream does not answer", [errorInfoDetail("UPSTREAM_UNAVAILABLE")]));
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
  return (req, res) => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    const endpoint = req.method === "GET" || req.method === "HEAD" ? endpoints.get(query < 0 ? url : url.slice(0, query)) : undefined;
    if (!endpoint) return false;
    Promise.resolve(endpoint(res)).catch((error: unknown) => {
      logger.error({ err: error, path: url }, "request failed");
      sendError(res, new ApiError(500, "internal error"));
    });
    return true;
  };
}
