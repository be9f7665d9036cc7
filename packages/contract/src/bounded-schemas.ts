/**
 * The document as both validators compile it: every schema's per-item and per-property checks bounded by the
 * schema's own size limit. Ajv with `allErrors` (as the compiled contract and express-openapi-validator run it)
 * reports one error per bad item, so a 1 MiB body of 200,000 bad strings made 200,000 errors — seconds of work —
 * although its `maxItems` says 64. Here those checks run only when the size bound holds:
 * `{ maxItems: 64, items: X }` becomes `{ maxItems: 64, if: { maxItems: 64 }, then: { items: X } }`, which accepts
 * exactly the same values and, past the bound, reports `maxItems` alone. An object with `additionalProperties:
 * false` and N named properties can never have more than N keys, so its unknown-name check is bounded the same way
 * at N + {@link maxFieldViolations} keys (every unknown name is still named up to there; past it, only
 * `maxProperties`). Ajv's own error for the `if` (`must match "then" schema`) names nothing and is dropped by the
 * mapper (`toFieldViolations`).
 */
import { maxFieldViolations } from "./field-violations.js";

type Schema = Record<string, unknown>;

/** Keywords that look at each item of an array. */
const itemKeywords = ["prefixItems", "items", "contains", "minContains", "maxContains", "uniqueItems"];
/** Keywords that look at each key of an object beyond the named properties. */
const propertyKeywords = ["patternProperties", "additionalProperties", "propertyNames"];
/** Keywords whose values are data, not schemas: copied as they are. */
const dataKeywords = new Set(["example", "examples", "const", "enum", "default"]);
/** Keywords whose values map names to schemas: the map itself is not a schema. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "dependentSchemas", "schemas"]);

const isObject = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema with `keywords` checked only when `limit` (`maxItems`, `maxProperties`) is at most `bound`. */
function guarded(schema: Schema, limit: string, bound: number, keywords: readonly string[], known: Schema): Schema {
  if (!keywords.some((k) => k in schema)) return schema;
  const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => !keywords.includes(k)));
  const moved = Object.fromEntries(keywords.filter((k) => k in schema).map((k) => [k, schema[k]]));
  const check = { if: { [limit]: bound }, then: { ...known, ...moved } };
  // A schema's own `if` stays where it is; the guard joins it through allOf.
  return "if" in rest
    ? { ...rest, [limit]: bound, allOf: [...((rest.allOf as unknown[] | undefined) ?? []), check] }
    : { ...rest, [limit]: bound, ...check };
}

/** One schema with its guards. `unevaluated*` keywords see what their siblings evaluated, so such schemas stay as written. */
function withGuards(schema: Schema): Schema {
  let out = schema;
  if (typeof schema.maxItems === "number" && !("unevaluatedItems" in schema))
    out = guarded(out, "maxItems", schema.maxItems, itemKeywords, {});
  const names = isObject(schema.properties) ? Object.keys(schema.properties) : [];
  const closed = schema.additionalProperties === false && !("patternProperties" in schema);
  const bound = Math.min(
    typeof schema.maxProperties === "number" ? schema.maxProperties : Infinity,
    closed ? names.length + maxFieldViolations : Infinity,
  );
  if (bound < Infinity && !("unevaluatedProperties" in schema)) {
    // The named properties stay checked where they are; `true` tells the moved keywords their names.
    out = guarded(
      out,
      "maxProperties",
      bound,
      propertyKeywords,
      names.length > 0 ? { properties: Object.fromEntries(names.map((n) => [n, true])) } : {},
    );
  }
  return out;
}

/** A deep copy of a value with every schema in it guarded; `isMap`: the value maps names to schemas. */
function copy(value: unknown, isMap: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => copy(v, false));
  if (!isObject(value)) return value;
  const out: Schema = {};
  for (const [key, child] of Object.entries(value))
    out[key] = isMap || !dataKeywords.has(key) ? copy(child, !isMap && schemaMaps.has(key)) : structuredClone(child);
  return isMap ? out : withGuards(out);
}

/** A copy of an OpenAPI document (or of one schema) whose size-limited schemas check their items and keys only within the limit. */
export function boundedSchemas<T>(document: T): T {
  return copy(document, false) as T;
}
