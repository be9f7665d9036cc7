/** The gateway's own endpoints, outside /v1: liveness, readiness and Prometheus metrics. */
import { ApiError, errorInfoDetail } from "@compute-api/contract";
import { Router } from "express";
import type { GatewayContext } from "./context.js";

/** `GET /healthz` (the gateway is up), `GET /readyz` (the upstream answers), `GET /metrics`. */
export function operationsRouter(ctx: GatewayContext, metricsText: () => Promise<string>): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    if (await ctx.upstream.ping()) {
      res.json({ status: "ready" });
      return;
    }
    const error = new ApiError(503, "service unavailable: the upstream does not answer", [errorInfoDetail("UPSTREAM_UNAVAILABLE")]);
    res.status(503).json(error.toBody());
  });
  router.get("/metrics", async (_req, res) => {
    const text = await metricsText();
    res.setHeader("content-type", ctx.metrics.registry.contentType);
    res.end(text);
  });
  return router;
}
