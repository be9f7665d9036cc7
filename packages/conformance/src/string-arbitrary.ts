/**
 * fast-check arbitraries of the strings a flat schema accepts: its patterns (fast-check's stringMatching), its
 * length bounds counted in code points, and its format (date-time); never a lone surrogate, which no request
 * can carry.
 */
import fc from "fast-check";
import type { FlatSchema } from "./schema-node.js";

/** Longest string or array generated where the schema sets no maximum, to keep requests small. */
export const defaultSpan = 16;

/** Strings of a flat schema: its patterns (all of them), length bounds and format. */
export function stringArbitrary(flat: FlatSchema): fc.Arbitrary<string> {
  const min = flat.minLength ?? 0;
  const max = flat.maxLength ?? Math.max(min, 0) + defaultSpan * 4;
  const patterns = flat.patterns.map((p) => new RegExp(p, "u"));
  const inBounds = (s: string) => codePoints(s) >= min && codePoints(s) <= max && patterns.every((re) => re.test(s));
  if (flat.format === "date-time") {
    return fc
      .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
      .map((d) => d.toISOString())
      .filter(inBounds);
  }
  if (flat.format !== undefined) throw new Error(`string format ${flat.format} is not supported`);
  const [first] = patterns;
  if (first) return fc.stringMatching(first, { size: min > 8 ? "medium" : "small" }).filter(inBounds);
  // Printable ASCII, and any code point (control characters, astral planes): both count one unit per code point.
  const span = { minLength: min, maxLength: Math.min(max, min + defaultSpan * 4) };
  return fc
    .oneof(fc.string({ unit: "grapheme-ascii", ...span }), fc.string({ unit: "binary", ...span }))
    .filter((s) => isWellFormed(s) && inBounds(s));
}

/** Whether a string has no lone surrogate (it can be encoded as UTF-8, in a URL or in JSON text). */
export const isWellFormed = (s: string): boolean => !/[\uD800-\uDFFF]/u.test(s);

/** Length as JSON Schema counts it: in code points. */
export const codePoints = (s: string): number => [...s].length;
