/** The values of compute-stub's flags: what each parser accepts, and what it says of a value it refuses. */

import { origins } from "@compute-api/runtime/cli";
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { faultList, latencyRange, percent, requestRate } from "../src/cli-flags.js";

const parsers = {
  faultList,
  latencyRange,
  percent,
  requestRate,
  origins: (v: string) => origins(v, undefined),
};
type Parser = keyof typeof parsers;

describe("compute-stub flag values", () => {
  it.each<[string, { parser: Parser; given: string; want: unknown }]>([
    ["a percentage", { parser: "percent", given: "0.5%", want: 0.005 }],
    ["all of them", { parser: "percent", given: "100%", want: 1 }],
    [
      "statuses with shares",
      {
        parser: "faultList",
        given: "429=2%, 503=1%",
        want: [
          { status: 429, share: 0.02 },
          { status: 503, share: 0.01 },
        ],
      },
    ],
    ["a latency range", { parser: "latencyRange", given: "20-200", want: { min: 20, max: 200 } }],
    ["a fixed latency", { parser: "latencyRange", given: "50", want: { min: 50, max: 50 } }],
    ["a rate a second", { parser: "requestRate", given: "20/s", want: 20 }],
    ["a rate a minute", { parser: "requestRate", given: "600/min", want: 10 }],
    ["origins", { parser: "origins", given: "http://a.example,https://b.example", want: expect.any(Array) }],
  ])("accepts %s", (_name, { parser, given, want }) => {
    expect(parsers[parser](given)).toEqual(want);
  });

  it.each<[string, { parser: Parser; given: string; want: RegExp }]>([
    ["a share over 100%", { parser: "percent", given: "150%", want: /not a percentage from 0% to 100%/ }],
    ["a share that is not a number", { parser: "percent", given: "some", want: /not a percentage/ }],
    ["a share without its % sign, 2 % or 200 %", { parser: "percent", given: "2", want: /with its % sign/ }],
    [
      "a status without its share",
      { parser: "faultList", given: "503", want: /'503' needs a share of requests: 503=1%/ },
    ],
    [
      "200, which is no fault",
      { parser: "faultList", given: "200=50%", want: /'200' is not a status every operation documents as a failure/ },
    ],
    ["a status given twice", { parser: "faultList", given: "503=1%,503=90%", want: /503 is given twice/ }],
    [
      "a status not every operation documents",
      { parser: "faultList", given: "404=1%", want: /'404' is not a status every operation documents/ },
    ],
    ["shares over 100% in all", { parser: "faultList", given: "500=60%,503=50%", want: /add up to more than 100%/ }],
    ["a range upside down", { parser: "latencyRange", given: "200-20", want: /not a range of milliseconds/ }],
    ["a latency over a minute", { parser: "latencyRange", given: "60001", want: /at most 60000/ }],
    ["a rate without its unit", { parser: "requestRate", given: "20", want: /not a rate such as 20\/s/ }],
    ["a rate of nothing", { parser: "requestRate", given: "0/s", want: /not a rate/ }],
    ["an origin that is not one", { parser: "origins", given: "ftp://files.example", want: /is not an origin/ }],
  ])("refuses %s", (_name, { parser, given, want }) => {
    const parse = () => parsers[parser](given);
    expect(parse).toThrow(InvalidArgumentError);
    expect(parse).toThrow(want);
  });
});
