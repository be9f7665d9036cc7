/**
 * The copy of the document a compute server gives express-openapi-validator, with each `oneOf` that has a discriminator
 * checked by its tag first. The validator checks a `oneOf` branch by branch and, with `allErrors`, each branch to
 * its end: a search result was held to all nine result types, eight of which fail, with their errors built and
 * dropped. Its `discriminator` option is for requests only (5.6), so the document says it instead: a branch
 * `{ $ref: X }` whose mapping key is `k` becomes `{ if: { tag is k }, then: { $ref: X }, else: false }`.
 * Decided once, at start-up, and only where it accepts exactly the same values: each branch's schema must require
 * the tag and hold it to its own key (`const` or a one-value `enum`), so that no value can pass a branch whose
 * key is not its tag, and the rewritten branch passes exactly when the branch did. A `oneOf` that does not
 * qualify stays as written.
 * @see https://spec.openapis.org/oas/v3.1.0#discriminator-object
 */
import { deref, type OpenApiDocument } from "@compute-api/contract";

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keywords whose values are data, not schemas: never rewritten. */
const dataKeywords = new Set(["example", "examples", "const", "enum", "default"]);
/** Keywords whose values map names to schemas: their keys are names, never keywords. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "dependentSchemas", "schemas"]);

/** Whether a schema requires `tag` and allows it only the value `key`, at its top level. */
function pinsTag(schema: Schema, tag: string, key: string): boolean {
  const required = Array.isArray(schema.required) && schema.required.includes(tag);
  const property = isObject(schema.properties) ? schema.properties[tag] : undefined;
  if (!required || !isObject(property)) return false;
  if ("const" in property) return property.const === key;
  return Array.isArray(property.enum) && property.enum.length === 1 && property.enum[0] === key;
}

/** The branches of a discriminated `oneOf` guarded by their tag, or undefined when it does not qualify. */
function guardedBranches(spec: OpenApiDocument, schema: Schema): Schema[] | undefined {
  const { oneOf, discriminator } = schema;
  if (!Array.isArray(oneOf) || !isObject(discriminator) || !isObject(discriminator.mapping)) return undefined;
  const tag = discriminator.propertyName;
  if (typeof tag !== "string") return undefined;
  const mapping = Object.entries(discriminator.mapping);
  const branches: Schema[] = [];
  for (const branch of oneOf) {
    if (!isObject(branch) || typeof branch.$ref !== "string" || Object.keys(branch).length !== 1) return undefined;
    const keys = mapping.filter(([, ref]) => ref === branch.$ref).map(([key]) => key);
    const [key] = keys;
    if (keys.length !== 1 || key === undefined) return undefined;
    const target = deref<unknown>(spec, branch);
    if (!isObject(target) || !pinsTag(target, tag, key)) return undefined;
    branches.push({
      if: { type: "object", required: [tag], properties: { [tag]: { const: key } } },
      then: branch,
      else: false,
    });
  }
  return branches;
}

/** A copy of the document whose qualifying discriminated `oneOf`s check the branch their tag names only. */
export function discriminatedOneOfs<T extends OpenApiDocument>(spec: T): T {
  const visitMap = (value: unknown): unknown =>
    isObject(value) ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, visit(child)])) : value;
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (!isObject(value)) return value;
    const out: Schema = {};
    for (const [key, child] of Object.entries(value))
      out[key] = dataKeywords.has(key) ? child : schemaMaps.has(key) ? visitMap(child) : visit(child);
    const branches = guardedBranches(spec, value);
    if (branches) out.oneOf = branches;
    return out;
  };
  return visit(spec) as T;
}
