/** The routes outside `/v1` and outside the spec: health, the bundled spec and its HTML reference. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defaultSpecPath, type OpenApiDocument } from "@compute-api/contract";
import { Router } from "express";

/** Where the generated files are: next to the bundled spec. */
const generatedDir = dirname(defaultSpecPath);

/** GET /healthz, /openapi.json, /openapi.yaml and /docs (generated/docs/index.html, self-contained). */
export function metaRoutes(spec: OpenApiDocument): Router {
  const yaml = readFileSync(join(generatedDir, "openapi.yaml"), "utf8");
  const docs = readFileSync(join(generatedDir, "docs", "index.html"), "utf8");
  return Router()
    .get("/healthz", (_req, res) => {
      res.json({ status: "ok" });
    })
    .get("/openapi.json", (_req, res) => {
      res.json(spec);
    })
    .get("/openapi.yaml", (_req, res) => {
      res.type("application/yaml").send(yaml);
    })
    .get("/docs", (_req, res) => {
      res.type("html").send(docs);
    });
}
