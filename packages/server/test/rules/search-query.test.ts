/** Reading a search query: terms, the one `type:` term, and the 400s of the spec. */
import { ApiError } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { parseSearchQuery } from "../../src/rules/search-query.js";

describe("parseSearchQuery", () => {
  const good: [string, { given: string; want: ReturnType<typeof parseSearchQuery> }][] = [
    [
      "splits at white space and lowercases",
      { given: "  Train \u00a0 GPU ", want: { terms: ["train", "gpu"], type: undefined } },
    ],
    [
      "reads a type term in any case",
      { given: "TYPE:VirtualMachine web", want: { terms: ["web"], type: "virtualMachine" } },
    ],
    ["accepts a type term alone", { given: "type:billingAccount", want: { terms: [], type: "billingAccount" } }],
    ["keeps other colons in terms", { given: "a:b", want: { terms: ["a:b"], type: undefined } }],
  ];
  it.each(good)("%s", (_name, { given, want }) => {
    expect(parseSearchQuery(given)).toEqual(want);
  });

  const bad: [string, { given: string; reason: string }][] = [
    ["no term", { given: " \t ", reason: "terms-required" }],
    ["an unknown type", { given: "type:server x", reason: "type-unknown" }],
    ["an empty type", { given: "type: x", reason: "type-unknown" }],
    ["two type terms", { given: "type:disk type:disk", reason: "type-repeated" }],
  ];
  it.each(bad)("refuses %s with a 400 naming query", (_name, { given, reason }) => {
    let error: unknown;
    try {
      parseSearchQuery(given);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).toBody()).toMatchObject({
      code: 400,
      details: [{ fieldViolations: [{ field: "query", reason }] }, {}],
    });
  });
});
