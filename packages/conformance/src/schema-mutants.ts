/**
 * Values that break exactly one constraint of a schema, derived from its keywords: one mutator per keyword
 * (type, const, enum, not, pattern, minLength, maxLength, minimum/maximum, required, additionalProperties,
 * minProperties, minItems, maxItems, uniqueItems), applied at every place of the value the schema describes
 * (properties and array items, through $ref and allOf). The rest of the value is generated valid, so the one
 * broken constraint is the only reason to refuse it.
 */
import fc from "fast-check";
import {
  codePoints,
  isWellFormed,
  type SchemaArbitraries,
  type SchemaArbitraryOptions,
  stringArbitrary,
  type ValuePath,
  withProperties,
} from "./schema-arbitrary.js";
import { canonicalJson, type FlatSchema, isNever, type JsonType, jsonTypes, type SchemaNode } from "./schema-node.js";

/** A value with one constraint broken: which keyword, and where (property names and array indices). */
export interface Mutant {
  value: unknown;
  path: (string | number)[];
  keyword: string;
}

/** One constraint of the schema that can be broken, and an arbitrary of values that break it. */
export interface MutationSite {
  /** Where the constraint applies: property names, `*` for any array item. */
  at: ValuePath;
  keyword: string;
  arbitrary: fc.Arbitrary<Mutant>;
  /**
   * For a pattern: every near miss of one valid value — one character of the pattern's own alphabet added or
   * replaced at either end — that the pattern refuses (such as `-2.5` for a non-negative Decimal), each in a
   * whole value. The boundaries of a grammar, tried exhaustively rather than by chance.
   */
  nearMisses?: fc.Arbitrary<Mutant>[];
}

/** Options of the mutators. */
export interface MutantOptions extends SchemaArbitraryOptions {
  /**
   * How the value travels: `json` (a body: any JSON value can be sent), `query` (a query parameter: only text),
   * `path` (a path segment: only text, and never empty, which would be another route).
   */
  carrier?: "json" | "query" | "path";
}

/** The JSON type of a value. */
function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

/** Characters a pattern names (literals, class members, `\xNN` escapes) and their neighbours: near misses of its grammar. */
export function patternAlphabet(pattern: string): string[] {
  const points = new Set<number>();
  const add = (cp: number) => {
    for (const p of [cp - 1, cp, cp + 1]) if (p >= 0 && p <= 0x10ffff) points.add(p);
  };
  for (const ch of pattern) add(ch.codePointAt(0) ?? 0);
  for (const [, hex] of pattern.matchAll(/\\x([0-9A-Fa-f]{2})/g)) add(Number.parseInt(hex ?? "0", 16));
  return [...points].filter((p) => p < 0xd800 || p > 0xdfff).map((p) => String.fromCodePoint(p));
}

/** A string with one character inserted, replaced or deleted, at the start, the end or anywhere. */
export function edited(value: string, chars: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const units = [...value];
  const position = fc.oneof(fc.constant(0), fc.constant(units.length), fc.nat({ max: units.length }));
  return fc.tuple(fc.constantFrom("insert", "replace", "delete"), position, chars).map(([op, at, ch]) => {
    const out = [...units];
    if (op === "insert") out.splice(at, 0, ch);
    else if (op === "replace") out.splice(Math.min(at, Math.max(out.length - 1, 0)), 1, ch);
    else out.splice(Math.min(at, Math.max(out.length - 1, 0)), 1);
    return out.join("");
  });
}

/** Any single code point: printable ASCII, control characters, the rest of Unicode. */
const anyChar = fc.oneof(
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((s) => isWellFormed(s)),
);

/** Values of one JSON type, for the type mutator. */
function ofType(type: JsonType): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return fc.string();
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n));
    case "integer":
      return fc.integer();
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 });
    case "object":
      return fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3, noNullPrototype: true });
  }
}

/**
 * Names an unknown property can have so that a field path (`a.b`, `a[2]`) still names it: express-openapi-validator
 * appends the raw name to the JSON pointer of its object, so an empty name, or one with `/`, `.`, `[` or `]`,
 * cannot be told apart from a path (a known limitation, not generated).
 */
const writableName = (name: string): boolean => name !== "" && !/[/.[\]]/.test(name) && isWellFormed(name);

/** Every constraint of the schema at the nodes that one value can break, each with its arbitrary of mutants. */
export function mutationSites(
  arbitraries: SchemaArbitraries,
  nodes: readonly SchemaNode[],
  options: MutantOptions = {},
): MutationSite[] {
  const carrier = options.carrier ?? "json";
  const sites: MutationSite[] = [];

  const walk = (
    at: ValuePath,
    here: readonly SchemaNode[],
    embed: (leaf: fc.Arbitrary<Mutant>) => fc.Arbitrary<Mutant>,
  ): void => {
    const flat = arbitraries.flatten(here);
    const valid = arbitraries.forNodes(here, at, options);
    for (const [keyword, leaf, misses] of leafMutators(flat, valid, at, carrier !== "json")) {
      const wrap = (values: fc.Arbitrary<unknown>) => embed(values.map((value) => ({ value, path: [], keyword })));
      sites.push({
        at,
        keyword,
        arbitrary: wrap(leaf),
        ...(misses ? { nearMisses: misses.map((m) => wrap(fc.constant(m))) } : {}),
      });
    }
    for (const [keyword, leaf] of objectMutators(flat, valid)) {
      sites.push({ at: [...at, ...keyword.at], keyword: keyword.name, arbitrary: embed(leaf) });
    }
    if (carrier !== "json") return;
    for (const [name, child] of childProperties(flat)) {
      walk([...at, name], child, (leaf) =>
        embed(
          fc.tuple(valid, leaf).map(([parent, m]) => ({
            ...m,
            value: withProperties(parent as Record<string, unknown>, { [name]: m.value }),
            path: [name, ...m.path],
          })),
        ),
      );
    }
    if (flat.items && !isNever(flat.items)) {
      const nonEmpty = (valid as fc.Arbitrary<unknown[]>).filter((a) => Array.isArray(a) && a.length > 0);
      walk([...at, "*"], flat.items, (leaf) =>
        embed(
          fc.tuple(nonEmpty, fc.nat(), leaf).map(([array, i, m]) => {
            const index = i % array.length;
            const value = [...array];
            value[index] = m.value;
            return { ...m, value, path: [index, ...m.path] };
          }),
        ),
      );
    }
  };

  /** The properties a request can carry (not `false`, not readOnly in requests). */
  const childProperties = (flat: FlatSchema): [string, SchemaNode[]][] =>
    [...flat.properties].filter(([, child]) => {
      if (isNever(child)) return false;
      const f = arbitraries.flatten(child);
      return !((options.direction ?? "request") === "request" ? f.readOnly : f.writeOnly);
    });

  /** Mutators of the value itself: type, const, enum, not, string and number bounds, array bounds. */
  function leafMutators(
    flat: FlatSchema,
    valid: fc.Arbitrary<unknown>,
    at: ValuePath,
    textOnly: boolean,
  ): [string, fc.Arbitrary<unknown>, string[]?][] {
    const out: [string, fc.Arbitrary<unknown>, string[]?][] = [];
    const min = flat.minLength ?? 0;
    const max = flat.maxLength ?? Infinity;
    const patterns = flat.patterns.map((p) => new RegExp(p, "u"));
    const sendable = (s: string) => isWellFormed(s) && !(carrier === "path" && at.length === 0 && s === "");
    const stringsOnly = flat.types?.every((t) => t === "string") ?? false;

    if (flat.types && !textOnly) {
      const allowed = flat.types;
      const others = jsonTypes.filter((t) => !allowed.includes(t) && !(t === "integer" && allowed.includes("number")));
      if (others.length > 0) out.push(["type", fc.oneof(...others.map(ofType))]);
    }
    const listed = flat.const ? [flat.const.value] : flat.enum;
    if (listed?.every((v) => typeof v === "string")) {
      const keyword = flat.const ? "const" : "enum";
      const words = listed as string[];
      const misses = fc.oneof(
        fc.constantFrom(...words).chain((w) => edited(w, anyChar)),
        fc.constantFrom(...words).map((w) => (w === w.toLowerCase() ? w.toUpperCase() : w.toLowerCase())),
        fc.string(),
      );
      out.push([keyword, misses.filter((s) => !words.includes(s) && sendable(s))]);
    }
    for (const not of flat.not) {
      const s = not.schema;
      const excluded =
        typeof s === "object" ? ("const" in s ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined) : undefined;
      // Only the excluded values that the rest of the schema accepts (type, enum, const) break `not` alone.
      const alone = excluded?.filter(
        (v) =>
          (!flat.types ||
            flat.types.includes(jsonTypeOf(v)) ||
            (jsonTypeOf(v) === "integer" && flat.types.includes("number"))) &&
          (!flat.enum || flat.enum.some((e) => canonicalJson(e) === canonicalJson(v))) &&
          (!flat.const || canonicalJson(flat.const.value) === canonicalJson(v)),
      );
      if (alone && alone.length > 0) out.push(["not", fc.constantFrom(...alone)]);
    }
    if (stringsOnly && !listed) {
      for (const [i, re] of patterns.entries()) {
        const chars = patternAlphabet(flat.patterns[i] ?? "");
        const base = valid as fc.Arbitrary<string>;
        const refused = (s: string) => !re.test(s) && codePoints(s) >= min && codePoints(s) <= max && sendable(s);
        const candidates = fc.oneof(
          base.chain((v) => edited(v, fc.constantFrom(...chars))),
          base.chain((v) => edited(v, anyChar)),
          fc.string({ unit: "binary", maxLength: 24 }),
        );
        const [sample = ""] = fc.sample(base, { numRuns: 1, seed: 1 });
        const units = [...sample];
        const misses = chars.flatMap((c) => [
          c + sample,
          sample + c,
          c + units.slice(1).join(""),
          units.slice(0, -1).join("") + c,
        ]);
        out.push(["pattern", candidates.filter(refused), [...new Set(misses)].filter(refused)]);
      }
      if (min > 0) {
        const shorter = min > 1 ? stringArbitrary({ ...flat, minLength: 1, maxLength: min - 1 }) : fc.constant("");
        if (sendable(min > 1 ? "x" : "")) out.push(["minLength", shorter]);
      }
      if (max < Infinity) {
        const longer = patterns[0]
          ? fc.stringMatching(patterns[0], { size: "large" })
          : fc.string({ minLength: max + 1, maxLength: max + 32 });
        out.push([
          "maxLength",
          longer.filter((s) => codePoints(s) > max && patterns.every((re) => re.test(s)) && sendable(s)),
        ]);
      }
    }
    const numeric = flat.types?.every((t) => t === "integer" || t === "number") ?? false;
    if (numeric && !listed) {
      const integer = flat.types?.includes("integer") && !flat.types.includes("number");
      if (flat.minimum !== undefined)
        out.push([
          "minimum",
          integer
            ? fc.integer({ max: Math.ceil(flat.minimum) - 1 })
            : fc.double({ max: flat.minimum, maxExcluded: true, noNaN: true, noDefaultInfinity: true }),
        ]);
      if (flat.maximum !== undefined)
        out.push([
          "maximum",
          integer
            ? fc.integer({ min: Math.floor(flat.maximum) + 1 })
            : fc.double({ min: flat.maximum, minExcluded: true, noNaN: true, noDefaultInfinity: true }),
        ]);
    }
    if (flat.items && !textOnly) {
      const item = arbitraries.forNodes(flat.items, [...at, "*"], options);
      const array = (minLength: number, maxLength: number) =>
        flat.uniqueItems
          ? fc.uniqueArray(item, { minLength, maxLength, selector: canonicalJson })
          : fc.array(item, { minLength, maxLength });
      if (flat.maxItems !== undefined) out.push(["maxItems", array(flat.maxItems + 1, flat.maxItems + 4)]);
      if (flat.minItems !== undefined && flat.minItems > 0) out.push(["minItems", array(0, flat.minItems - 1)]);
    }
    return out;
  }

  /** Mutators that reach into an object or array: required, additionalProperties, minProperties, uniqueItems. */
  function objectMutators(
    flat: FlatSchema,
    valid: fc.Arbitrary<unknown>,
  ): [{ name: string; at: ValuePath }, fc.Arbitrary<Mutant>][] {
    const out: [{ name: string; at: ValuePath }, fc.Arbitrary<Mutant>][] = [];
    if (carrier !== "json") return out;
    const objects = valid as fc.Arbitrary<Record<string, unknown>>;
    const writable = childProperties(flat).map(([name]) => name);
    for (const name of flat.required) {
      if (!writable.includes(name)) continue;
      out.push([
        { name: "required", at: [name] },
        objects.map((o) => {
          const { [name]: _removed, ...rest } = o;
          return { value: rest, path: [name], keyword: "required" };
        }),
      ]);
    }
    if (flat.additionalProperties === false) {
      const unknown = fc
        .string({ minLength: 1, maxLength: 16 })
        .filter((k) => !flat.properties.has(k) && writableName(k));
      out.push([
        { name: "additionalProperties", at: [] },
        fc.tuple(objects, unknown, fc.jsonValue({ maxDepth: 1 })).map(([o, key, v]) => ({
          value: withProperties(o, { [key]: v }),
          path: [key],
          keyword: "additionalProperties",
        })),
      ]);
    }
    if (flat.minProperties !== undefined && flat.minProperties > flat.required.size) {
      const keep = flat.minProperties - 1;
      out.push([
        { name: "minProperties", at: [] },
        objects.map((o) => ({
          value: Object.fromEntries(
            Object.entries(o)
              .sort(([a], [b]) => Number(flat.required.has(b)) - Number(flat.required.has(a)))
              .slice(0, keep),
          ),
          path: [],
          keyword: "minProperties",
        })),
      ]);
    }
    if (flat.uniqueItems) {
      const arrays = (valid as fc.Arbitrary<unknown[]>).filter(
        (a) => Array.isArray(a) && a.length > 0 && a.length < (flat.maxItems ?? Infinity),
      );
      out.push([
        { name: "uniqueItems", at: [] },
        fc.tuple(arrays, fc.nat(), fc.nat()).map(([a, i, j]) => {
          const from = i % a.length;
          const to = from + 1 + (j % (a.length - from));
          const value = [...a];
          value.splice(to, 0, structuredClone(a[from]));
          return { value, path: [to], keyword: "uniqueItems" };
        }),
      ]);
    }
    return out;
  }

  walk([], nodes, (leaf) => leaf);
  return sites;
}
