import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { compareDecimals, type DecimalParts, isDecimal, normalizeDecimal, parseDecimal } from "../src/index.js";

const valid = [
  "0",
  "2.5",
  "-0.5",
  "+1",
  ".5",
  "5.",
  "1e10",
  "1E10",
  "2.5E-3",
  "-.5e+2",
  "007",
  "1.50",
  "-0",
  "1e999999999999",
];
const invalid = [
  "",
  " ",
  "1 ",
  "+",
  "-",
  ".",
  "e5",
  "1e",
  "1e+",
  "1.2.3",
  "1,5",
  "0x10",
  "NaN",
  "Infinity",
  "1_000",
  "--1",
  "½",
  "٣",
];

describe("isDecimal", () => {
  test.each(valid)("%j is a decimal", (value) => {
    expect(isDecimal(value)).toBe(true);
  });

  test.each(invalid)("%j is not a decimal", (value) => {
    expect(isDecimal(value)).toBe(false);
  });

  test("agrees with the pattern of the spec's Decimal schema", () => {
    const spec = JSON.parse(readFileSync(new URL("../../../generated/openapi.json", import.meta.url), "utf8")) as {
      components: { schemas: { Decimal: { properties: { value: { pattern: string } } } } };
    };
    const pattern = new RegExp(spec.components.schemas.Decimal.properties.value.pattern, "u");
    for (const value of [...valid, ...invalid]) expect([value, isDecimal(value)]).toEqual([value, pattern.test(value)]);
  });
});

describe("parseDecimal", () => {
  const cases: [string, { given: string; want: DecimalParts }][] = [
    ["an integer", { given: "25", want: { sign: 1, coefficient: "25", exponent: 0n } }],
    ["a fraction", { given: "2.5", want: { sign: 1, coefficient: "25", exponent: -1n } }],
    ["trailing zeros", { given: "1500", want: { sign: 1, coefficient: "15", exponent: 2n } }],
    ["fraction trailing zeros", { given: "1.50", want: { sign: 1, coefficient: "15", exponent: -1n } }],
    ["leading zeros", { given: "-007.05", want: { sign: -1, coefficient: "705", exponent: -2n } }],
    ["an exponent", { given: ".5E+3", want: { sign: 1, coefficient: "5", exponent: 2n } }],
    [
      "a huge exponent",
      { given: "1e999999999999999999", want: { sign: 1, coefficient: "1", exponent: 999999999999999999n } },
    ],
    ["zero", { given: "0.000", want: { sign: 0, coefficient: "0", exponent: 0n } }],
    ["negative zero", { given: "-0e7", want: { sign: 0, coefficient: "0", exponent: 0n } }],
  ];

  test.each(cases)("%s", (_, { given, want }) => {
    expect(parseDecimal(given)).toEqual(want);
  });

  test.each(invalid)("%j throws a RangeError", (value) => {
    expect(() => parseDecimal(value)).toThrow(RangeError);
  });
});

describe("normalizeDecimal", () => {
  const cases: [string, { given: string; want: string }][] = [
    ["a leading + is dropped", { given: "+2.5", want: "2.5" }],
    [".5 becomes 0.5", { given: ".5", want: "0.5" }],
    ["-.5 becomes -0.5", { given: "-.5", want: "-0.5" }],
    ["5. becomes 5", { given: "5.", want: "5" }],
    ["E becomes e", { given: "2.5E-3", want: "2.5e-3" }],
    ["e0 is dropped", { given: "7e0", want: "7" }],
    ["e+0 is dropped", { given: "7E+0", want: "7" }],
    ["e-00 is dropped", { given: "7e-00", want: "7" }],
    ["all rules at once", { given: "+.5E+0", want: "0.5" }],
    ["5.e3 becomes 5e3", { given: "5.e3", want: "5e3" }],
    ["a non-zero exponent keeps its sign", { given: "1E+05", want: "1e+05" }],
    ["trailing zeros stay", { given: "2.50", want: "2.50" }],
    ["leading zeros stay", { given: "007", want: "007" }],
    ["a minus stays", { given: "-0.5", want: "-0.5" }],
    ["a normalized value is unchanged", { given: "2.5", want: "2.5" }],
  ];

  test.each(cases)("%s", (_, { given, want }) => {
    expect(normalizeDecimal(given)).toBe(want);
  });

  test.each(valid)("normalizing %j twice changes nothing more, and keeps its value", (value) => {
    const once = normalizeDecimal(value);
    expect(normalizeDecimal(once)).toBe(once);
    expect(compareDecimals(once, value)).toBe(0);
  });

  test.each(invalid)("%j throws a RangeError", (value) => {
    expect(() => normalizeDecimal(value)).toThrow(RangeError);
  });
});

describe("compareDecimals", () => {
  const cases: [string, { given: [string, string]; want: -1 | 0 | 1 }][] = [
    ["equal text", { given: ["2.5", "2.5"], want: 0 }],
    ["equal values written differently", { given: ["1.50", "15e-1"], want: 0 }],
    ["zeros of any sign and exponent", { given: ["-0", "0.00e9"], want: 0 }],
    ["a leading + and a leading zero", { given: ["+0.5", ".5"], want: 0 }],
    ["smaller", { given: ["2.4", "2.5"], want: -1 }],
    ["greater", { given: ["10", "9.99"], want: 1 }],
    ["more digits but smaller", { given: ["0.999999999999999999999", "1"], want: -1 }],
    ["beyond float precision", { given: ["0.30000000000000000001", "0.3"], want: 1 }],
    ["where floats say 0.1 + 0.2 > 0.3", { given: ["0.3", "0.30000000000000004"], want: -1 }],
    ["negative against positive", { given: ["-5", "1"], want: -1 }],
    ["negatives reverse the order", { given: ["-2.5", "-2.4"], want: -1 }],
    ["negative against zero", { given: ["-1e-999", "0"], want: -1 }],
    ["exponents decide", { given: ["1e400", "9e399"], want: 1 }],
    ["exponents beyond any float", { given: ["1e999999999999999999", "1e999999999999999998"], want: 1 }],
    ["same leading position, later digit decides", { given: ["123.45", "12345e-2"], want: 0 }],
  ];

  test.each(cases)("%s", (_, { given: [a, b], want }) => {
    expect(compareDecimals(a, b)).toBe(want);
    expect(compareDecimals(b, a)).toBe(want === 0 ? 0 : -want);
  });

  test("throws a RangeError on something that is not a decimal", () => {
    expect(() => compareDecimals("1", "one")).toThrow(RangeError);
  });
});
