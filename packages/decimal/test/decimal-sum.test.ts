/** Exact decimal sums for the cluster totals. */
import { compareDecimals } from "@compute-api/decimal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sumDecimals } from "../src/index.js";

describe("sumDecimals", () => {
  const cases: [string, { given: string[]; want: string | undefined }][] = [
    ["nothing as 0", { given: [], want: "0" }],
    ["without floating point error", { given: ["0.1", "0.2"], want: "0.3" }],
    ["without trailing zeros", { given: ["2.50", "1.50"], want: "4" }],
    ["integers in plain digits", { given: ["999", "1"], want: "1000" }],
    ["any notation", { given: ["+.5", "5.", "1E1", "25e-1"], want: "18" }],
    ["negative values", { given: ["-1.25", "0.5"], want: "-0.75" }],
    ["values that cancel out", { given: ["1e40", "-1e40", "0.001"], want: "0.001" }],
    ["zeros of any scale", { given: ["0.000", "-0", "0e99"], want: "0" }],
    ["small values", { given: ["1e-30", "2e-30"], want: "0.000000000000000000000000000003" }],
    ["huge values with an exponent", { given: ["1e999999999", "1e999999999"], want: "2e999999999" }],
    ["tiny values with an exponent", { given: ["1e-70", "1e-70"], want: "2e-70" }],
    ["values too far apart as nothing", { given: ["1e999999999", "1"], want: undefined }],
    ["sums over 64 digits as nothing", { given: ["1e40", "1e-40"], want: undefined }],
  ];
  it.each(cases)("sums %s", (_name, { given, want }) => {
    expect(sumDecimals(given)).toBe(want);
  });

  it("equals the exact sum of any prices", () => {
    const price = fc.record({ units: fc.bigInt(-(10n ** 15n), 10n ** 15n), scale: fc.integer({ min: 0, max: 8 }) });
    fc.assert(
      fc.property(fc.array(price, { maxLength: 20 }), (prices) => {
        const values = prices.map(({ units, scale }) => `${units}e-${scale}`);
        const exact = prices.reduce((acc, { units, scale }) => acc + units * 10n ** BigInt(8 - scale), 0n);
        const sum = sumDecimals(values);
        expect(sum).toMatch(/^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
        expect(compareDecimals(sum ?? "", `${exact}e-8`)).toBe(0);
      }),
    );
  });
});
