/** The stub's routes outside the spec besides the server's /healthz and /openapi.json: the spec's YAML and its HTML reference. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Router } from "express";

/** A file @compute-api/spec publishes, wherever it is installed. */
const specFile = (name: string) =>
  readFileSync(createRequire(import.meta.url).resolve(`@compute-api/spec/${name}`), "utf8");

/** GET /openapi.yaml and /docs (the spec's self-contained HTML reference). */
export function metaRoutes(): Router {
  const yaml = specFile("openapi.yaml");
  const docs = specFile("docs/index.html");
  return Router()
    .get("/openapi.yaml", (_req, res) => {
      res.type("application/yaml").send(yaml);
    })
    .get("/docs", (_req, res) => {
      res.type("html").send(docs);
    });
}
