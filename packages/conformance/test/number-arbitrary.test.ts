import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { integerArbitrary, numberArbitrary } from "../src/number-arbitrary.js";
import { type FlatSchema, flatSchema } from "../src/schema-node.js";
import { seed } from "./support.js";

describe("integerArbitrary", () => {
  it.each<[string, { given: Partial<FlatSchema>; want: { min: number; max: number } }]>([
    ["int32 bounds", { given: { format: "int32" }, want: { min: -(2 ** 31), max: 2 ** 31 - 1 } }],
    [
      "without a format, safe integers",
      { given: {}, want: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } },
    ],
    ["minimum and maximum", { given: { minimum: -3, maximum: 7 }, want: { min: -3, max: 7 } }],
    ["exclusive bounds", { given: { exclusiveMinimum: 0, exclusiveMaximum: 10 }, want: { min: 1, max: 9 } }],
    ["fractional bounds", { given: { minimum: 0.5, maximum: 2.5 }, want: { min: 1, max: 2 } }],
    [
      "the tighter of int32 and a bound",
      { given: { format: "int32", minimum: 5 }, want: { min: 5, max: 2 ** 31 - 1 } },
    ],
  ])("%s", (_name, { given, want }) => {
    const values = fc.sample(integerArbitrary(flatSchema(given)), { numRuns: 200, seed });
    for (const v of values) {
      expect(Number.isInteger(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(want.min);
      expect(v).toBeLessThanOrEqual(want.max);
    }
  });
});

describe("numberArbitrary", () => {
  it.each<[string, { given: Partial<FlatSchema>; want: (n: number) => boolean }]>([
    ["finite", { given: {}, want: Number.isFinite }],
    ["never -0", { given: { minimum: -1, maximum: 1 }, want: (n) => !Object.is(n, -0) }],
    ["exclusive bounds kept out", { given: { exclusiveMinimum: 0, exclusiveMaximum: 1 }, want: (n) => n > 0 && n < 1 }],
    ["inclusive bounds", { given: { minimum: 2, maximum: 3 }, want: (n) => n >= 2 && n <= 3 }],
  ])("%s", (_name, { given, want }) => {
    for (const n of fc.sample(numberArbitrary(flatSchema(given)), { numRuns: 200, seed }))
      expect(want(n), String(n)).toBe(true);
  });
});
