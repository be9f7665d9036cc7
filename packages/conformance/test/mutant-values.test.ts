import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { edited, jsonTypeOf, ofType, patternAlphabet } from "../src/mutant-values.js";
import type { JsonType } from "../src/schema-node.js";
import { seed } from "./support.js";

describe("patternAlphabet and edited", () => {
  it("names the pattern's characters, its \\x escapes and their neighbours", () => {
    const alphabet = patternAlphabet("^[a-c]\\x7F$");
    for (const c of ["a", "c", "`", "d", "\x7f", "\x7e", "\x80", "^", "$"]) expect(alphabet).toContain(c);
  });

  it("edits one character at a time", () => {
    for (const s of fc.sample(edited("abc", fc.constant("Z")), { numRuns: 100, seed })) {
      expect(Math.abs(s.length - 3)).toBeLessThanOrEqual(1);
    }
  });
});

describe("jsonTypeOf", () => {
  it.each<[string, { given: unknown; want: JsonType }]>([
    ["null", { given: null, want: "null" }],
    ["an array", { given: [1], want: "array" }],
    ["a whole number is an integer", { given: 3, want: "integer" }],
    ["a fraction is a number", { given: 2.5, want: "number" }],
    ["a string", { given: "x", want: "string" }],
    ["a boolean", { given: false, want: "boolean" }],
    ["an object", { given: { a: 1 }, want: "object" }],
  ])("%s", (_name, { given, want }) => {
    expect(jsonTypeOf(given)).toBe(want);
  });
});

describe("ofType", () => {
  it.each<JsonType>(["string", "number", "integer", "boolean", "null", "array", "object"])(
    "%s: every value is of the type",
    (type) => {
      for (const value of fc.sample(ofType(type), { numRuns: 50, seed })) expect(jsonTypeOf(value)).toBe(type);
    },
  );
});
