/**
 * The schema work of the tool derivation: resolving the document's local `$ref`s and turning OpenAPI's Schema Objects
 * into plain JSON Schema 2020-12, either with every `$ref` inlined (for a tool's arguments) or with the components it
 * uses kept once each under `$defs` (for its outputSchema), at build time (`derive-tools.ts`); `isObject` is shared.
 * @see https://spec.openapis.org/oas/v3.1.0#schema-object
 */
import type { Json, JsonObject } from "./tool-types.js";

// Keywords of OpenAPI's Schema Object that are not JSON Schema, and example values an agent does not need.
const openApiOnly = new Set(["discriminator", "example", "xml", "externalDocs"]);
// OpenAPI's formats of numbers are not JSON Schema formats; a validator that does not know them warns or throws.
const integerFormats: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const numberFormats = new Set(["float", "double"]);

/** Whether a value of the document is a JSON object (not null, not an array). */
export const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

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
export function resolveRef(spec: JsonObject, node: JsonObject): JsonObject {
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
  foldNotIntoEnum(out);
  const format = typeof out.format === "string" ? out.format : undefined;
  const range = format ? integerFormats[format] : undefined;
  if (range) {
    delete out.format;
    out.minimum ??= range[0];
    out.maximum ??= range[1];
  } else if (format && numberFormats.has(format)) delete out.format;
  return out;
}

/**
 * An `enum` beside a `not` of a `const` or an `enum` (the update's `powerState` lists `MACHINE_POWER_STATE_UNSPECIFIED`
 * in its shared enum and forbids it with `not`) as the `enum` of the values allowed, without the `not`: the same
 * values are valid, the schema offers only those, and a refused value's error names them.
 */
function foldNotIntoEnum(schema: JsonObject): void {
  const { enum: values, not } = schema;
  if (!Array.isArray(values) || !isObject(not)) return;
  const keys = Object.keys(not);
  const refused =
    keys.length === 1 && "const" in not
      ? [not.const]
      : keys.length === 1 && Array.isArray(not.enum)
        ? not.enum
        : undefined;
  if (!refused) return;
  const text = refused.map((v) => JSON.stringify(v));
  schema.enum = values.filter((v) => !text.includes(JSON.stringify(v)));
  delete schema.not;
}

/** The schema with every `$ref` replaced by what it names. */
export function inlined(spec: JsonObject, schema: Json): Json {
  const inline = (node: JsonObject): Json => cleanSchema(resolveRef(spec, node), inline);
  return cleanSchema(schema, inline);
}

/** The schema with its component `$ref`s pointing into `$defs`, which holds each component it uses once. */
export function withDefs(spec: JsonObject, schema: Json): JsonObject {
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
