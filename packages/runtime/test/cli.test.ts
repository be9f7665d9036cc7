/** The integer flag parser shared by the three commands. */
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { integerFlag } from "../src/cli.js";

describe("integerFlag", () => {
  it.each<[string, { given: string; min: number; max?: number; want: number }]>([
    ["the low end", { given: "0", min: 0, max: 65535, want: 0 }],
    ["the high end", { given: "65535", min: 0, max: 65535, want: 65535 }],
    ["spaces around", { given: " 8080 ", min: 0, max: 65535, want: 8080 }],
    ["leading zeros", { given: "007", min: 1, max: 10, want: 7 }],
    ["no upper bound given", { given: "9007199254740991", min: 1, want: Number.MAX_SAFE_INTEGER }],
  ])("accepts %s", (_name, { given, min, max, want }) => {
    expect(integerFlag(min, max)(given)).toBe(want);
  });

  it.each<[string, { given: string; min: number; max?: number; want: string }]>([
    ["a word", { given: "http", min: 0, max: 65535, want: "must be a whole number from 0 to 65535." }],
    ["above the range", { given: "70000", min: 0, max: 65535, want: "must be a whole number from 0 to 65535." }],
    ["below the range", { given: "0", min: 1, max: 1024, want: "must be a whole number from 1 to 1024." }],
    ["a sign", { given: "-1", min: 0, max: 10, want: "must be a whole number from 0 to 10." }],
    ["a fraction", { given: "1.5", min: 0, max: 10, want: "must be a whole number from 0 to 10." }],
    ["an exponent", { given: "1e3", min: 0, max: 10_000, want: "must be a whole number from 0 to 10000." }],
    ["nothing", { given: "", min: 0, max: 10, want: "must be a whole number from 0 to 10." }],
    [
      "no upper bound given",
      { given: "0", min: 1, want: `must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}.` },
    ],
  ])("refuses %s with the one wording", (_name, { given, min, max, want }) => {
    const parse = () => integerFlag(min, max)(given);
    expect(parse).toThrow(InvalidArgumentError);
    expect(parse).toThrow(want);
  });
});
