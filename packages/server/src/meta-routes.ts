/** The routes of a compute server outside the spec: `/healthz`, and the bundled spec at `/openapi.json`. */
import type { OpenApiDocument } from "@compute-api/contract";
import { Router } from "express";

/** The paths metaRoutes serves. */
export const metaPaths = (openapi: boolean): string[] => (openapi ? ["/healthz", "/openapi.json"] : ["/healthz"]);

/** GET /healthz (`{ "status": "ok" }`) and, with `openapi`, GET /openapi.json (the document the server validates against). */
export function metaRoutes(spec: OpenApiDocument, openapi: boolean): Router {
  const router = Router().get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  if (openapi) {
    router.get("/openapi.json", (_req, res) => {
      res.json(spec);
    });
  }
  return router;
}
