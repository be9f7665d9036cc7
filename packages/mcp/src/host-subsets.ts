/**
 * The subsets of JSON Schema that agents' hosts take in a tool's schema, as their documentation states them, for
 * `--client`: what each keeps as it is (a keyword, or some of its values), and what it needs otherwise (every object
 * closed, every property required and optional ones nullable, no `$ref`). What a subset cannot say is written into
 * the description instead (`host-schemas.ts`); the pre-send check holds every call to the full schema still.
 */
import type { Json } from "./tool-types.js";

/** The hosts `--client` names. */
export const hosts = ["openai", "anthropic", "gemini"] as const;
/** A host `--client` names. */
export type Host = (typeof hosts)[number];

/** What a host takes. */
export interface HostSubset {
  /** Keywords kept as they are, or kept when the value passes (a format the host knows, a pattern it can compile). */
  keeps: Readonly<Record<string, true | ((value: Json, schema: Readonly<Record<string, Json>>) => boolean)>>;
  /** Every object gets `additionalProperties: false` (else that keyword is dropped, as any not kept). */
  closedObjects: boolean;
  /** Every property is required; an optional one is made nullable instead (and null means "not given"). */
  allRequired: boolean;
  /** `$ref` to `$defs` allowed (else each is inlined). */
  refs: boolean;
  /** A `const` as a one-value `enum`; a `oneOf` as an `anyOf`; an `allOf` merged into its schema. */
  constAsEnum: boolean;
  mergeAllOf: boolean;
  /** The output schema is read by the host (and so held to its subset too). */
  readsOutputSchema: boolean;
}

const inSet =
  (...values: string[]) =>
  (value: Json) =>
    typeof value === "string" && values.includes(value);

/** A regular expression without the constructs Anthropic's grammar-constrained sampling refuses or may refuse. */
const simplePattern = (value: Json) => typeof value === "string" && !/\(\?|\\[1-9bBxupPk]|\{\d+,?\d{3,}\}/.test(value);

/**
 * OpenAI's Structured Outputs, which function calling's `strict: true` uses: every object closed, every property
 * required (optional ones as a union with null), string `pattern` and some `format`s, number ranges, `minItems` and
 * `maxItems`; no `minLength`/`maxLength`, `uniqueItems`, `minProperties`, `not`, `allOf`, `oneOf`.
 * @see https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 */
const openai: HostSubset = {
  keeps: {
    type: true,
    description: true,
    properties: true,
    required: true,
    additionalProperties: true,
    items: true,
    enum: true,
    const: true,
    anyOf: true,
    $defs: true,
    $ref: true,
    pattern: true,
    format: inSet("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"),
    minimum: true,
    maximum: true,
    exclusiveMinimum: true,
    exclusiveMaximum: true,
    multipleOf: true,
    minItems: true,
    maxItems: true,
  },
  closedObjects: true,
  allRequired: true,
  refs: true,
  constAsEnum: false,
  mergeAllOf: true,
  readsOutputSchema: false,
};

/**
 * Anthropic's strict tool use (structured outputs): objects closed by `additionalProperties: false`, `enum`,
 * `const`, `anyOf`, `allOf`, local `$ref`, some `format`s, simple patterns and `minItems` of 0 or 1; no number
 * ranges, no `minLength`/`maxLength`, no other array or object counts (its SDKs move those into descriptions).
 * @see https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
 */
const anthropic: HostSubset = {
  keeps: {
    type: true,
    description: true,
    properties: true,
    required: true,
    additionalProperties: (value) => value === false,
    items: true,
    enum: true,
    const: true,
    anyOf: true,
    allOf: true,
    $defs: true,
    $ref: true,
    default: true,
    pattern: simplePattern,
    format: inSet("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"),
    minItems: (value) => value === 0 || value === 1,
  },
  closedObjects: true,
  allRequired: false,
  refs: true,
  constAsEnum: false,
  mergeAllOf: false,
  readsOutputSchema: false,
};

/**
 * Gemini's function declarations: `parameters` (and `response`) are its Schema, a subset of OpenAPI 3.0's: one
 * `type`, string `enum`s, `format` `enum` or `date-time` for strings, lengths, counts, ranges, `pattern`, `anyOf`;
 * no `additionalProperties`, `not`, `const`, `allOf`, `oneOf`, `$ref`, `uniqueItems`. Its SDK sends an MCP tool's
 * outputSchema as the declaration's response schema, so that is held to the subset too.
 * @see https://ai.google.dev/api/caching#Schema
 */
const gemini: HostSubset = {
  keeps: {
    type: inSet("string", "number", "integer", "boolean", "array", "object"),
    description: true,
    properties: true,
    required: true,
    items: true,
    enum: (value) => Array.isArray(value) && value.every((v) => typeof v === "string"),
    anyOf: true,
    format: (value, schema) =>
      schema.type === "string"
        ? inSet("enum", "date-time")(value)
        : schema.type === "integer"
          ? inSet("int32", "int64")(value)
          : inSet("float", "double")(value),
    minLength: true,
    maxLength: true,
    pattern: true,
    minItems: true,
    maxItems: true,
    minProperties: true,
    maxProperties: true,
    minimum: true,
    maximum: true,
    default: true,
  },
  closedObjects: false,
  allRequired: false,
  refs: false,
  constAsEnum: true,
  mergeAllOf: true,
  readsOutputSchema: true,
};

/** The subset of each host. */
export const hostSubsets: Readonly<Record<Host, HostSubset>> = { openai, anthropic, gemini };
