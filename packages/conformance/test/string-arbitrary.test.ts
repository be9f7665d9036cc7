import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FlatSchema, flatSchema } from "../src/schema-node.js";
import { codePoints, isWellFormed, stringArbitrary } from "../src/string-arbitrary.js";
import { seed } from "./support.js";

describe("stringArbitrary", () => {
  it.each<[string, { given: Partial<FlatSchema>; want: (s: string) => boolean }]>([
    [
      "lengths in code points",
      { given: { minLength: 2, maxLength: 3 }, want: (s) => codePoints(s) >= 2 && codePoints(s) <= 3 },
    ],
    ["every pattern at once", { given: { patterns: ["^[a-f]+$", "^.{2,4}$"] }, want: (s) => /^[a-f]{2,4}$/.test(s) }],
    ["date-time", { given: { format: "date-time" }, want: (s) => new Date(s).toISOString() === s }],
    ["no lone surrogate", { given: { maxLength: 8 }, want: isWellFormed }],
  ])("%s", (_name, { given, want }) => {
    for (const s of fc.sample(stringArbitrary(flatSchema({ types: ["string"], ...given })), { numRuns: 100, seed }))
      expect(want(s), s).toBe(true);
  });

  it("throws on a format it does not know rather than generating wrong values", () => {
    expect(() => stringArbitrary(flatSchema({ types: ["string"], format: "email" }))).toThrow(
      /format email is not supported/,
    );
  });
});

describe("isWellFormed and codePoints", () => {
  it.each<[string, { given: string; want: { wellFormed: boolean; codePoints: number } }]>([
    ["ASCII", { given: "abc", want: { wellFormed: true, codePoints: 3 } }],
    ["an astral character is one code point", { given: "a😀", want: { wellFormed: true, codePoints: 2 } }],
    ["a lone surrogate", { given: "a\uD800", want: { wellFormed: false, codePoints: 2 } }],
    ["empty", { given: "", want: { wellFormed: true, codePoints: 0 } }],
  ])("%s", (_name, { given, want }) => {
    expect({ wellFormed: isWellFormed(given), codePoints: codePoints(given) }).toEqual(want);
  });
});
