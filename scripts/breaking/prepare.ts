/**
 * Makes an OpenAPI 3.1 document readable by oasdiff without changing what it accepts or returns. oasdiff's parser
 * (kin-openapi) rejects boolean subschemas and ignores the keywords beside a `$ref`, which 3.1 applies together with
 * the referenced schema; so boolean subschemas take their object form and a `$ref` with constraining siblings becomes
 * `allOf: [{ $ref }]` beside them (the same conjunction, spelt the 3.0 way).
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keywords that only document a schema: left beside a `$ref` (dropped by the parser, which changes no verdict). */
const documentation = new Set(["$ref", "description", "title", "examples", "example", "$comment"]);

/** Keywords whose value maps names to subschemas. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);

/** Keywords whose value is one subschema (a boolean there is a schema; elsewhere, as in `required: true`, a flag). */
const subschemaKeywords = new Set([
  "items",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "additionalItems",
]);

/** Keywords whose value is a list of subschemas. */
const schemaLists = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

/** What a value is: a subschema, a map of names to subschemas, or anything else. */
type Position = "schema" | "map" | "other";

function childPosition(parent: Position, key: string): Position {
  if (parent === "map" || subschemaKeywords.has(key)) return "schema";
  if (schemaMaps.has(key)) return "map";
  return "other";
}

function prepareValue(value: Json, position: Position, key = ""): Json {
  if (typeof value === "boolean") return position === "schema" ? (value ? {} : { not: {} }) : value;
  if (Array.isArray(value)) return value.map((v) => prepareValue(v, schemaLists.has(key) ? "schema" : "other"));
  if (value === null || typeof value !== "object") return value;
  const out = Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, prepareValue(v, childPosition(position, k), k)]),
  );
  const ref = out.$ref;
  const constrained = Object.keys(out).some((k) => !documentation.has(k));
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/") && constrained) {
    const { $ref: _, ...siblings } = out;
    return { allOf: [{ $ref: ref }], ...siblings };
  }
  return out;
}

/** The document as oasdiff should read it (a copy; the input is not changed). */
export function prepareForOasdiff(doc: Json): Json {
  return prepareValue(doc, "other");
}
