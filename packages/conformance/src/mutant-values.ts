/**
 * The building blocks of values that break one constraint: the JSON type of a value, values of another type,
 * the alphabet of a pattern and its neighbours, and one-character edits of a string.
 */
import fc from "fast-check";
import type { SchemaArbitraryOptions } from "./schema-arbitrary.js";
import type { JsonType } from "./schema-node.js";
import { isWellFormed } from "./string-arbitrary.js";

/** A value with one constraint broken: which keyword, and where (property names and array indices). */
export interface Mutant {
  value: unknown;
  path: (string | number)[];
  keyword: string;
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
export function jsonTypeOf(value: unknown): JsonType {
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
export const anyChar = fc.oneof(
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((s) => isWellFormed(s)),
);

/** Values of one JSON type, for the type mutator. */
export function ofType(type: JsonType): fc.Arbitrary<unknown> {
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
