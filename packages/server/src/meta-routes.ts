/**
 * The routes of a compute server outside the spec: `/healthz` (liveness: the process answers), `/readyz`
 * (readiness: the implementation's check passes and the server is not draining), and the bundled spec at
 * `/openapi.json`.
 */
import { notReady, type OpenApiDocument, shuttingDown } from "@compute-api/contract";
import type { Logger } from "@compute-api/runtime";
import { type RequestHandler, Router } from "express";
import { sendError } from "./error-handlers.js";
import { signalOf } from "./request-deadline.js";

/** What the meta routes need to know. */
export interface MetaRouteOptions {
  /** Serve GET /openapi.json. */
  openapi: boolean;
  /** The implementation's readiness check: ready when it resolves to anything but `false`. */
  ready?: ((signal: AbortSignal) => unknown) | undefined;
  /** Whether the server drains (then /readyz answers 503 whatever the check says). */
  draining: () => boolean;
  logger: Logger;
}

/**
 * GET /healthz (`{ "status": "ok" }`), GET /readyz (`{ "status": "ready" }`, or 503 with the error body) and,
 * with `openapi`, GET /openapi.json (the document the server validates against): the router, and its paths.
 */
export function metaRoutes(
  spec: OpenApiDocument,
  { openapi, ready, draining, logger }: MetaRouteOptions,
): { router: Router; paths: ReadonlySet<string> } {
  const routes: [string, RequestHandler][] = [
    [
      "/healthz",
      (_req, res) => {
        res.json({ status: "ok" });
      },
    ],
    [
      "/readyz",
      // Answered here, not through the error handler: a probe's 503 is no failure to log at error.
      async (req, res) => {
        if (draining()) return sendError(res, shuttingDown());
        try {
          if ((await ready?.(signalOf(req))) === false) return sendError(res, notReady());
        } catch (error) {
          logger.warn({ err: error }, "not ready: the readiness check failed");
          return sendError(res, notReady());
        }
        if (!res.headersSent) res.json({ status: "ready" });
      },
    ],
  ];
  if (openapi)
    routes.push([
      "/openapi.json",
      (_req, res) => {
        res.json(spec);
      },
    ]);
  const router = Router();
  for (const [path, handler] of routes) router.get(path, handler);
  return { router, paths: new Set(routes.map(([path]) => path)) };
}
