/** The routes outside `/v1` and outside the spec: health, the bundled spec and its HTML reference. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { OpenApiDocument } from "@compute-api/contract";
import { Router } from "express";

/** A file @compute-api/spec publishes, wherever it is installed. */
const specFile = (name: string) =>
  readFileSync(createRequire(import.meta.url).resolve(`@compute-api/spec/${name}`), "utf8");

/** GET /healthz, /openapi.json, /openapi.yaml and /docs (the spec's self-contained HTML reference). */
export function metaRoutes(spec: OpenApiDocument): Router {
  const yaml = specFile("openapi.yaml");
  const docs = specFile("docs/index.html");
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
