/**
 * Mutators of a value itself, one per keyword: type (in a body only), const and enum (near misses of the words),
 * not (the excluded values the rest of the schema accepts), pattern (candidates and exhaustive near misses of its
 * grammar), minLength, maxLength, minimum, maximum, minItems and maxItems. Each gives values that break its
 * keyword and nothing else of the schema.
 */
import fc from "fast-check";
import { anyChar, edited, jsonTypeOf, type MutantOptions, ofType, patternAlphabet } from "./mutant-values.js";
import type { SchemaArbitraries, ValuePath } from "./schema-arbitrary.js";
import { canonicalJson, type FlatSchema, jsonTypes } from "./schema-node.js";
import { codePoints, isWellFormed, stringArbitrary } from "./string-arbitrary.js";

/** A keyword that can be broken, an arbitrary of values that break it, and for a pattern its near misses. */
export type LeafMutator = [keyword: string, values: fc.Arbitrary<unknown>, nearMisses?: string[]];

/** What the mutators of one value share. */
interface Leaf {
  arbitraries: SchemaArbitraries;
  options: MutantOptions;
  flat: FlatSchema;
  valid: fc.Arbitrary<unknown>;
  at: ValuePath;
  /** Query and path values are text: no other JSON type, no array can be written there. */
  textOnly: boolean;
  /** The const or enum values, if any. */
  listed: unknown[] | undefined;
  /** Whether a string can be sent at this place (well formed; a path parameter not empty). */
  sendable(s: string): boolean;
}

/** Mutators of the value itself: type, const, enum, not, string and number bounds, array bounds. */
export function leafMutators(
  arbitraries: SchemaArbitraries,
  options: MutantOptions,
  flat: FlatSchema,
  valid: fc.Arbitrary<unknown>,
  at: ValuePath,
): LeafMutator[] {
  const carrier = options.carrier ?? "json";
  const leaf: Leaf = {
    arbitraries,
    options,
    flat,
    valid,
    at,
    textOnly: carrier !== "json",
    listed: flat.const ? [flat.const.value] : flat.enum,
    sendable: (s) => isWellFormed(s) && !(carrier === "path" && at.length === 0 && s === ""),
  };
  return [
    ...typeMutators(leaf),
    ...listMutators(leaf),
    ...notMutators(leaf),
    ...stringMutators(leaf),
    ...numberMutators(leaf),
    ...arrayMutators(leaf),
  ];
}

/** type: a value of another JSON type (in a body only). */
function typeMutators({ flat, textOnly }: Leaf): LeafMutator[] {
  const out: LeafMutator[] = [];
  if (flat.types && !textOnly) {
    const allowed = flat.types;
    const others = jsonTypes.filter((t) => !allowed.includes(t) && !(t === "integer" && allowed.includes("number")));
    if (others.length > 0) out.push(["type", fc.oneof(...others.map(ofType))]);
  }
  return out;
}

/** const and enum: near misses of the words. */
function listMutators({ flat, listed, sendable }: Leaf): LeafMutator[] {
  const out: LeafMutator[] = [];
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
  return out;
}

/** not: the excluded values that the rest of the schema accepts. */
function notMutators({ flat }: Leaf): LeafMutator[] {
  const out: LeafMutator[] = [];
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
  return out;
}

/** pattern (candidates and near misses of its grammar), minLength and maxLength, of a string that is not listed. */
function stringMutators({ flat, listed, valid, sendable }: Leaf): LeafMutator[] {
  const out: LeafMutator[] = [];
  const stringsOnly = flat.types?.every((t) => t === "string") ?? false;
  const min = flat.minLength ?? 0;
  const max = flat.maxLength ?? Infinity;
  const patterns = flat.patterns.map((p) => new RegExp(p, "u"));
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
  return out;
}

/** minimum and maximum, of a number that is not listed. */
function numberMutators({ flat, listed }: Leaf): LeafMutator[] {
  const out: LeafMutator[] = [];
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
  return out;
}

/** minItems and maxItems (in a body only). */
function arrayMutators({ arbitraries, options, flat, at, textOnly }: Leaf): LeafMutator[] {
  const out: LeafMutator[] = [];
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
