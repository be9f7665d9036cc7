/** The routes of a compute server outside the spec: `/healthz`, and the bundled spec at `/openapi.json`. */
import type { OpenApiDocument } from "@compute-api/contract";
import { type RequestHandler, Router } from "express";

/**
 * GET /healthz (`{ "status": "ok" }`) and, with `openapi`, GET /openapi.json (the document the server validates
 * against): the router, and the paths it serves.
 */
export function metaRoutes(spec: OpenApiDocument, openapi: boolean): { router: Router; paths: ReadonlySet<string> } {
  const routes: [string, RequestHandler][] = [
    [
      "/healthz",
      (_req, res) => {
        res.json({ status: "ok" });
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
