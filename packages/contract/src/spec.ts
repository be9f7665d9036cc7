/** The bundled OpenAPI document (generated/openapi.json), loaded once. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Path of the bundled document in this repository: the same from src/ and from dist/. */
export const defaultSpecPath = fileURLToPath(new URL("../../../generated/openapi.json", import.meta.url));

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
} & Record<string, unknown>;

const cache = new Map<string, OpenApiDocument>();

/** Reads and parses the bundled document; a missing or unreadable file throws naming the path. */
export function loadSpec(specPath: string = defaultSpecPath): OpenApiDocument {
  const cached = cache.get(specPath);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(specPath, "utf8");
  } catch (error) {
    throw new Error(`cannot read the OpenAPI document at ${specPath} (run \`npm run build\`): ${String(error)}`);
  }
  const spec = JSON.parse(text) as OpenApiDocument;
  cache.set(specPath, spec);
  return spec;
}

/** Follows a local `$ref` (`#/components/…`) to the object it names; a value without `$ref` is returned as it is. */
export function deref<T>(spec: OpenApiDocument, value: T & { $ref?: string }): T {
  if (!value.$ref) return value;
  const steps = value.$ref.replace(/^#\//, "").split("/").map((step) => step.replaceAll("~1", "/").replaceAll("~0", "~"));
  return steps.reduce<unknown>((acc, step) => (acc as Record<string, unknown> | undefined)?.[step], spec) as T;
}
