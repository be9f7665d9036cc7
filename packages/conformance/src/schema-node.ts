/**
 * JSON Schema (2020-12, the dialect of OpenAPI 3.1) taken apart for generating values: a schema of the bundled
 * document is followed through `$ref` (with sibling keywords) and `allOf` and flattened into one set of
 * constraints. Each part keeps the JSON pointer it came from, so Ajv can check a value against the original.
 * @see https://spec.openapis.org/oas/v3.1.0#schema-object
 */
import { pointerToken, resolvePointer } from "@compute-api/contract";
import { checkKeywords } from "./schema-keywords.js";

/** A JSON Schema: an object of keywords, or `true` (anything) / `false` (nothing). */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** A schema and where it sits in the document (`#/components/schemas/Decimal`). */
export interface SchemaNode {
  schema: JsonSchema;
  pointer: string;
}

/** The JSON types of JSON Schema's `type`. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";

export const jsonTypes: readonly JsonType[] = ["string", "number", "integer", "boolean", "null", "object", "array"];

/** The constraints of one or more schemas that all apply to a value, merged. */
export interface FlatSchema {
  /** Allowed types; undefined when no schema restricts the type. */
  types?: JsonType[] | undefined;
  const?: { value: unknown };
  enum?: unknown[];
  /** Schemas the value must not match (`not`). */
  not: SchemaNode[];
  patterns: string[];
  minLength?: number | undefined;
  maxLength?: number | undefined;
  format?: string;
  minimum?: number | undefined;
  maximum?: number | undefined;
  exclusiveMinimum?: number | undefined;
  exclusiveMaximum?: number | undefined;
  /** Each property's schemas; `false` among them means the property must be absent. */
  properties: Map<string, SchemaNode[]>;
  required: Set<string>;
  /** `false`: no other property; schemas: other properties must match them; undefined: not restricted. */
  additionalProperties?: false | SchemaNode[];
  minProperties?: number | undefined;
  maxProperties?: number | undefined;
  items?: SchemaNode[];
  minItems?: number | undefined;
  maxItems?: number | undefined;
  uniqueItems: boolean;
  /** Each `oneOf` and `anyOf` met, as its list of branches. */
  oneOf: SchemaNode[][];
  anyOf: SchemaNode[][];
  readOnly: boolean;
  writeOnly: boolean;
  /** Pointers of every schema merged here: a value is valid when it is valid against each. */
  pointers: string[];
}

/** The node at a pointer of the document. */
export function nodeAt(document: unknown, pointer: string): SchemaNode {
  return { schema: resolvePointer(document, pointer) as JsonSchema, pointer };
}

/** True when one of the nodes is the `false` schema (nothing is valid). */
export const isNever = (nodes: readonly SchemaNode[]): boolean => nodes.some((n) => n.schema === false);

const intersectTypes = (a: JsonType[] | undefined, b: JsonType[] | undefined): JsonType[] | undefined => {
  if (!a) return b;
  if (!b) return a;
  const out = a.filter((t) => b.includes(t) || (t === "integer" && b.includes("number")));
  for (const t of b) if (t === "integer" && a.includes("number") && !out.includes("integer")) out.push("integer");
  return out;
};

const tighter =
  (pick: (a: number, b: number) => number) =>
  (a: number | undefined, b: unknown): number | undefined =>
    typeof b !== "number" ? a : a === undefined ? b : pick(a, b);
const atLeast = tighter(Math.max);
const atMost = tighter(Math.min);

/** The flat schema of no constraint at all (anything is valid), with `more` set. */
export function flatSchema(more: Partial<FlatSchema> = {}): FlatSchema {
  return {
    not: [],
    patterns: [],
    properties: new Map(),
    required: new Set(),
    uniqueItems: false,
    oneOf: [],
    anyOf: [],
    readOnly: false,
    writeOnly: false,
    pointers: [],
    ...more,
  };
}

/**
 * Merges the constraints of all the nodes (and of what they reference and `allOf`) into one flat schema.
 * Throws on a keyword it does not support, so that a new spec construct is noticed rather than ignored.
 */
export function flatten(document: unknown, nodes: readonly SchemaNode[]): FlatSchema {
  const flat = flatSchema();
  const seen = new Set<string>();
  const visit = (node: SchemaNode, record: boolean): void => {
    if (record) flat.pointers.push(node.pointer);
    const s = node.schema;
    if (s === true) return;
    if (s === false) {
      flat.types = [];
      return;
    }
    if (seen.has(node.pointer)) throw new Error(`recursive schema at ${node.pointer} is not supported`);
    seen.add(node.pointer);
    const at = (...tokens: (string | number)[]) =>
      `${node.pointer}/${tokens.map((t) => pointerToken(String(t))).join("/")}`;
    checkKeywords(s, node.pointer);
    if (typeof s.$ref === "string") visit(nodeAt(document, s.$ref), false);
    if (s.type !== undefined) {
      const types = (Array.isArray(s.type) ? s.type : [s.type]) as JsonType[];
      flat.types = intersectTypes(flat.types, types);
    }
    if ("const" in s) flat.const = { value: s.const };
    if (Array.isArray(s.enum))
      flat.enum = flat.enum ? flat.enum.filter((v) => (s.enum as unknown[]).includes(v)) : [...s.enum];
    if (s.not !== undefined) flat.not.push({ schema: s.not as JsonSchema, pointer: at("not") });
    if (typeof s.pattern === "string") flat.patterns.push(s.pattern);
    if (typeof s.format === "string") flat.format = s.format;
    flat.minLength = atLeast(flat.minLength, s.minLength);
    flat.maxLength = atMost(flat.maxLength, s.maxLength);
    flat.minimum = atLeast(flat.minimum, s.minimum);
    flat.maximum = atMost(flat.maximum, s.maximum);
    flat.exclusiveMinimum = atLeast(flat.exclusiveMinimum, s.exclusiveMinimum);
    flat.exclusiveMaximum = atMost(flat.exclusiveMaximum, s.exclusiveMaximum);
    flat.minProperties = atLeast(flat.minProperties, s.minProperties);
    flat.maxProperties = atMost(flat.maxProperties, s.maxProperties);
    flat.minItems = atLeast(flat.minItems, s.minItems);
    flat.maxItems = atMost(flat.maxItems, s.maxItems);
    if (s.uniqueItems === true) flat.uniqueItems = true;
    if (s.readOnly === true) flat.readOnly = true;
    if (s.writeOnly === true) flat.writeOnly = true;
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
      flat.properties.set(name, [
        ...(flat.properties.get(name) ?? []),
        { schema: child, pointer: at("properties", name) },
      ]);
    }
    for (const name of (s.required ?? []) as string[]) flat.required.add(name);
    const additional = s.additionalProperties as JsonSchema | undefined;
    if (additional === false) flat.additionalProperties = false;
    else if (additional !== undefined && additional !== true && flat.additionalProperties !== false) {
      flat.additionalProperties = [
        ...(flat.additionalProperties ?? []),
        { schema: additional, pointer: at("additionalProperties") },
      ];
    }
    if (s.items !== undefined)
      flat.items = [...(flat.items ?? []), { schema: s.items as JsonSchema, pointer: at("items") }];
    for (const [i, part] of ((s.allOf ?? []) as JsonSchema[]).entries())
      visit({ schema: part, pointer: at("allOf", i) }, false);
    if (Array.isArray(s.oneOf))
      flat.oneOf.push(s.oneOf.map((b: JsonSchema, i: number) => ({ schema: b, pointer: at("oneOf", i) })));
    if (Array.isArray(s.anyOf))
      flat.anyOf.push(s.anyOf.map((b: JsonSchema, i: number) => ({ schema: b, pointer: at("anyOf", i) })));
    seen.delete(node.pointer);
  };
  for (const node of nodes) visit(node, true);
  return flat;
}

/** The types a flat schema's value can have: its `type`, or what its keywords imply, or any. */
export function possibleTypes(flat: FlatSchema): JsonType[] {
  if (flat.types) return flat.types;
  const implied: JsonType[] = [];
  if (
    flat.properties.size > 0 ||
    flat.required.size > 0 ||
    flat.additionalProperties !== undefined ||
    flat.minProperties !== undefined
  )
    implied.push("object");
  if (flat.items || flat.minItems !== undefined || flat.maxItems !== undefined) implied.push("array");
  if (flat.patterns.length > 0 || flat.minLength !== undefined || flat.maxLength !== undefined) implied.push("string");
  if (flat.minimum !== undefined || flat.maximum !== undefined) implied.push("number");
  return implied.length > 0 ? implied : [...jsonTypes];
}

/** JSON with object keys sorted: equal for values JSON Schema's `uniqueItems` and `const` consider equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
