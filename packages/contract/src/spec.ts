/**
 * The bundled OpenAPI document of @compute-api/spec, loaded once. Node's file system is taken when a document is
 * loaded (`process.getBuiltinModule`), not imported, so that the compiled contract bundles for a browser (the stub's
 * MSW handlers), where the document is given rather than read.
 */
import { deref } from "./json-pointer.js";

/** Node's file system and module loader, or a plain error where there is no Node (a browser: give the document). */
function nodeBuiltins() {
  const process = globalThis.process;
  if (!process?.getBuiltinModule)
    throw new Error("loading the OpenAPI document needs Node; elsewhere, pass the document");
  return { fs: process.getBuiltinModule("node:fs"), module: process.getBuiltinModule("node:module") };
}

/** Path of the bundled document, wherever @compute-api/spec is installed; throws when it is not. */
export function defaultSpecPath(): string {
  return nodeBuiltins()
    .module.createRequire(import.meta.url)
    .resolve("@compute-api/spec/openapi.json");
}

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
} & Record<string, unknown>;

const cache = new Map<string, OpenApiDocument>();

/** Reads and parses the bundled document; a missing or unreadable file throws naming the path. */
export function loadSpec(specPath?: string): OpenApiDocument {
  const cached = cache.get(specPath ?? "");
  if (cached) return cached;
  // Without Node there is nothing to install: that is the cause, said as it is.
  const { fs } = nodeBuiltins();
  let text: string;
  try {
    text = fs.readFileSync(specPath ?? defaultSpecPath(), "utf8");
  } catch (error) {
    throw new Error(
      `cannot read the OpenAPI document at ${specPath ?? "@compute-api/spec/openapi.json"}: ${String(error)} (is @compute-api/spec installed? In the repository, run npm install)`,
    );
  }
  const spec = JSON.parse(text) as OpenApiDocument;
  cache.set(specPath ?? "", spec);
  return spec;
}

/** A parameter of an operation, as the spec writes it. */
export interface SpecParameter {
  name: string;
  in: string;
  example?: unknown;
}

/** One operation of the document, with its path-level and own parameters merged and dereferenced. */
export interface SpecOperation {
  /** The path template, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  path: string;
  /** Lower-case HTTP method. */
  method: string;
  /** The Operation Object. */
  operation: Record<string, unknown> & { operationId?: string };
  parameters: SpecParameter[];
  /** Its success: the lowest documented 2xx status and that response's JSON content. */
  success: OperationSuccess;
}

const httpMethods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Every operation of the document, in document order. */
export function specOperations(spec: OpenApiDocument): SpecOperation[] {
  const out: SpecOperation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    const shared = (item.parameters as (SpecParameter & { $ref?: string })[] | undefined) ?? [];
    for (const [method, op] of Object.entries(item)) {
      if (!httpMethods.has(method) || typeof op !== "object" || op === null) continue;
      const operation = op as SpecOperation["operation"] & { parameters?: (SpecParameter & { $ref?: string })[] };
      const parameters = [...shared, ...(operation.parameters ?? [])].map((p) => deref(spec, p));
      out.push({ path, method, operation, parameters, success: successOf(spec, operation) });
    }
  }
  return out;
}

/** An operation's success: its lowest documented 2xx status, and that response (dereferenced) and its JSON content. */
export interface OperationSuccess {
  status: number;
  /** The response's `application/json` media object (its schema, `example`, `examples`); none for a bodiless 204. */
  media: { example?: unknown; examples?: Record<string, unknown> } | undefined;
}

/** The success of an operation: its lowest 2xx (200 when it documents none) and its JSON body, if it has one. */
function successOf(spec: OpenApiDocument, operation: SpecOperation["operation"]): OperationSuccess {
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  const status = Object.keys(responses)
    .filter((code) => /^2\d\d$/.test(code))
    .sort()[0];
  if (status === undefined) return { status: 200, media: undefined };
  const response = deref(spec, (responses[status] ?? {}) as { content?: Record<string, unknown> });
  const media = response.content?.["application/json"] as OperationSuccess["media"];
  return { status: Number(status), media: status === "204" ? undefined : media };
}
