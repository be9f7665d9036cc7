/**
 * The MCP tools of the spec: one per operation, derived from the bundled OpenAPI document when `npm run build`
 * writes `src/generated/tools.json` (and `npm run check:generated` fails when that file is stale). Nothing here runs
 * when the server serves; the server reads the generated file.
 *
 * - name: the operationId as written (camelCase). MCP allows `[A-Za-z0-9_.-]` and prefers no case; keeping the
 *   spec's name means one name for one operation in the spec, the client's docs, the logs and the tools.
 * - description: the summary, then the description (search syntax, score, rules), then the statuses it may fail with.
 * - inputSchema: one flat object of the path and query parameters and the request body's properties, each with the
 *   spec's constraints inlined (no `$ref`, which some agent hosts do not follow in arguments).
 * - outputSchema: the 200 response's schema, its components kept once each under `$defs`.
 * - annotations: from the HTTP method (GET reads; PUT, PATCH and DELETE are idempotent; POST is neither).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 */
import type { OpenApiDocument } from "@compute-api/contract";

/** A JSON value of the document, walked without knowing its shape. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** What MCP's tools/list answers for one tool. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject & { type: "object" };
  outputSchema: JsonObject & { type: "object" };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

/** Where each argument of a tool goes in the HTTP request. */
export interface ToolOperation {
  method: string;
  /** The path template, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  path: string;
  pathParameters: string[];
  queryParameters: string[];
  /** The request body's properties, taken from the flat arguments; null when the operation takes no body. */
  bodyProperties: string[] | null;
  /** Result fields that the service returns only in this answer (a new secret): the text says so. */
  shownOnce: string[];
}

/** One generated tool: what the protocol lists, and how a call becomes a request. */
export interface GeneratedTool {
  tool: McpTool;
  operation: ToolOperation;
}

/** The generated file's content. */
export interface GeneratedTools {
  /** The spec's `info.version` the tools were derived from. */
  specVersion: string;
  tools: GeneratedTool[];
}

const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
// Keywords of OpenAPI's Schema Object that are not JSON Schema, and example values an agent does not need.
const openApiOnly = new Set(["discriminator", "example", "xml", "externalDocs"]);
// OpenAPI's formats of numbers are not JSON Schema formats; a validator that does not know them warns or throws.
const integerFormats: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const numberFormats = new Set(["float", "double"]);

/** What each HTTP method does to the world, as MCP's annotations say it. */
const methodHints: Record<string, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }> = {
  get: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  head: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  // This interface's PATCH sets the fields given to the values given: the same call twice leaves the same state.
  // It can power a machine off or replace its volumes, so it is destructive.
  patch: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  put: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  // POST creates: each call another thing (or a 409), nothing existing is changed.
  post: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
};

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function pointer(spec: JsonObject, ref: string): Json {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, not ${ref}`);
  let node: Json | undefined = spec;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    node = isObject(node) ? node[key] : undefined;
  }
  if (node === undefined) throw new Error(`$ref ${ref} does not resolve`);
  return node;
}

/** An object without its `$ref`, the referenced object's keywords under its own (OpenAPI 3.1 allows siblings). */
function resolveRef(spec: JsonObject, node: JsonObject): JsonObject {
  if (typeof node.$ref !== "string") return node;
  const { $ref, ...siblings } = node;
  const target = pointer(spec, $ref);
  if (!isObject(target)) throw new Error(`$ref ${$ref} is not an object`);
  return { ...resolveRef(spec, target), ...siblings };
}

/** A schema as JSON Schema 2020-12 without OpenAPI's own keywords and formats; `ref` rewrites or inlines `$ref`s. */
function cleanSchema(schema: Json, ref: (node: JsonObject) => Json): Json {
  if (Array.isArray(schema)) return schema.map((item) => cleanSchema(item, ref));
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === "string") return ref(schema);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (openApiOnly.has(key)) continue;
    // Values, not schemas: kept as written.
    if (key === "examples" || key === "enum" || key === "const" || key === "default") out[key] = value;
    else if (key === "properties" || key === "$defs" || key === "patternProperties") {
      out[key] = Object.fromEntries(
        Object.entries(isObject(value) ? value : {}).map(([name, child]) => [name, cleanSchema(child, ref)]),
      );
    } else out[key] = cleanSchema(value, ref);
  }
  const format = typeof out.format === "string" ? out.format : undefined;
  const range = format ? integerFormats[format] : undefined;
  if (range) {
    delete out.format;
    out.minimum ??= range[0];
    out.maximum ??= range[1];
  } else if (format && numberFormats.has(format)) delete out.format;
  return out;
}

/** The schema with every `$ref` replaced by what it names. */
function inlined(spec: JsonObject, schema: Json): Json {
  const inline = (node: JsonObject): Json => cleanSchema(resolveRef(spec, node), inline);
  return cleanSchema(schema, inline);
}

/** The schema with its component `$ref`s pointing into `$defs`, which holds each component it uses once. */
function withDefs(spec: JsonObject, schema: Json): JsonObject {
  const defs: JsonObject = {};
  const prefix = "#/components/schemas/";
  const ref = (node: JsonObject): Json => {
    const { $ref, ...siblings } = node;
    if (typeof $ref !== "string" || !$ref.startsWith(prefix)) throw new Error(`unexpected $ref ${String($ref)}`);
    const name = $ref.slice(prefix.length);
    if (!(name in defs)) {
      defs[name] = true; // taken before the walk, so that a recursive schema stops here
      defs[name] = cleanSchema(pointer(spec, $ref), ref);
    }
    return { $ref: `#/$defs/${name}`, ...(cleanSchema(siblings, ref) as JsonObject) };
  };
  const root = cleanSchema(isObject(schema) ? resolveRef(spec, schema) : schema, ref);
  if (!isObject(root) || root.type !== "object") throw new Error("an outputSchema must be an object schema");
  const sorted = Object.fromEntries(Object.entries(defs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return Object.keys(sorted).length > 0 ? { ...root, $defs: sorted } : root;
}

/** The statuses an operation documents besides 200, for its description. */
function failureStatuses(operation: JsonObject): string {
  const responses = isObject(operation.responses) ? Object.keys(operation.responses) : [];
  return responses.filter((status) => status !== "200").join(", ");
}

/** The text of `src/generated/tools.json`: the tools of the document, with a line that says where they come from. */
export function toolsFileText(document: OpenApiDocument): string {
  const comment =
    "Generated by `npm run build` from openapi/ (src/derive-tools.ts). Do not edit: change openapi/ and rebuild.";
  return `${JSON.stringify({ $comment: comment, ...deriveTools(document) }, null, 2)}\n`;
}

/** Derives the tools of every operation of the document. Throws, naming the operation, on what it cannot map. */
export function deriveTools(document: OpenApiDocument): GeneratedTools {
  const spec = document as unknown as JsonObject;
  const paths = isObject(spec.paths) ? spec.paths : {};
  const tools: GeneratedTool[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of httpMethods) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const name = operation.operationId;
      if (typeof name !== "string") throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      tools.push(
        deriveTool(spec, path, method, name, operation, Array.isArray(item.parameters) ? item.parameters : []),
      );
    }
  }
  tools.sort((a, b) => (a.tool.name < b.tool.name ? -1 : 1));
  const info = isObject(spec.info) ? spec.info : {};
  return { specVersion: String(info.version), tools };
}

function deriveTool(
  spec: JsonObject,
  path: string,
  method: string,
  name: string,
  operation: JsonObject,
  shared: Json[],
): GeneratedTool {
  const where = `${name} (${method.toUpperCase()} ${path})`;
  const properties: JsonObject = {};
  const required: string[] = [];
  const pathParameters: string[] = [];
  const queryParameters: string[] = [];
  const add = (field: string, schema: Json, isRequired: boolean) => {
    if (field in properties) throw new Error(`${where}: two arguments are named ${field}`);
    properties[field] = schema;
    if (isRequired) required.push(field);
  };
  const own = Array.isArray(operation.parameters) ? operation.parameters : [];
  for (const raw of [...shared, ...own]) {
    if (!isObject(raw)) continue;
    const parameter = resolveRef(spec, raw);
    const { name: field, in: location, description, required: isRequired, example } = parameter;
    if (typeof field !== "string") throw new Error(`${where}: a parameter has no name`);
    if (location === "path") pathParameters.push(field);
    else if (location === "query") queryParameters.push(field);
    else throw new Error(`${where}: parameter ${field} is in ${String(location)}, which a tool cannot send`);
    // The parameter's own description and example, not those of the schema it shares with other parameters.
    const schema = inlined(spec, parameter.schema ?? {});
    add(
      field,
      isObject(schema)
        ? {
            ...schema,
            ...(typeof description === "string" && { description }),
            ...(example !== undefined && { examples: [example] }),
          }
        : schema,
      location === "path" || isRequired === true,
    );
  }

  let bodyProperties: string[] | null = null;
  let minProperties: number | undefined;
  const requestBody = isObject(operation.requestBody) ? resolveRef(spec, operation.requestBody) : undefined;
  if (requestBody) {
    const content = isObject(requestBody.content) ? requestBody.content : {};
    const media = content["application/json"];
    if (!isObject(media)) throw new Error(`${where}: the request body is not application/json`);
    const body = inlined(spec, media.schema ?? {});
    if (!isObject(body) || body.type !== "object" || !isObject(body.properties)) {
      throw new Error(`${where}: the request body is not an object with properties`);
    }
    bodyProperties = Object.keys(body.properties);
    const bodyRequired = Array.isArray(body.required) ? body.required : [];
    for (const [field, schema] of Object.entries(body.properties)) {
      add(field, schema, requestBody.required === true && bodyRequired.includes(field));
    }
    // The flat object holds every path parameter, so "at least n body fields" is "at least that many more".
    if (typeof body.minProperties === "number") minProperties = pathParameters.length + body.minProperties;
  }

  const response = isObject(operation.responses) ? operation.responses["200"] : undefined;
  const media =
    isObject(response) && isObject(resolveRef(spec, response).content)
      ? (resolveRef(spec, response).content as JsonObject)["application/json"]
      : undefined;
  if (!isObject(media)) throw new Error(`${where}: no application/json 200 response`);
  const outputSchema = withDefs(spec, media.schema ?? {}) as McpTool["outputSchema"];
  const resultProperties = isObject(outputSchema.properties) ? outputSchema.properties : {};
  const shownOnce = Object.entries(resultProperties)
    .filter(
      ([, schema]) =>
        isObject(schema) &&
        typeof schema.description === "string" &&
        /returned only in this response/i.test(schema.description),
    )
    .map(([field]) => field);

  const summary = typeof operation.summary === "string" ? operation.summary : name;
  const description = [
    summary,
    typeof operation.description === "string" ? operation.description : "",
    `A failure (statuses ${failureStatuses(operation)}) is an error result that names the status, the reason, ` +
      "the arguments at fault and when to retry.",
  ]
    .filter(Boolean)
    .join("\n\n");
  const hints = methodHints[method];
  if (!hints) throw new Error(`${where}: no annotations for ${method.toUpperCase()}`);
  const inputSchema: McpTool["inputSchema"] = {
    type: "object",
    properties,
    required,
    additionalProperties: false,
    ...(minProperties !== undefined && { minProperties }),
  };
  return {
    tool: {
      name,
      title: summary,
      description,
      inputSchema,
      outputSchema,
      annotations: { title: summary, ...hints, openWorldHint: false },
    },
    operation: { method: method.toUpperCase(), path, pathParameters, queryParameters, bodyProperties, shownOnce },
  };
}
