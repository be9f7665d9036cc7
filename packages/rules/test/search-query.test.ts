/** Reading a search query: terms, the one `type:` term, and the 400s of the spec. */
import { ApiError } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { parseSearchQuery } from "../src/search-query.js";
import { searchQueryViolations } from "../src/search-query-violations.js";

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
    [
      "accepts 8 terms besides the type term",
      { given: "a b c d e f g h type:disk", want: { terms: [..."abcdefgh"], type: "disk" } },
    ],
    ["keeps a repeated term each time", { given: "a A a b", want: { terms: ["a", "a", "a", "b"], type: undefined } }],
  ];
  it.each(good)("%s", (_name, { given, want }) => {
    expect(parseSearchQuery(given)).toEqual(want);
  });

  const tooMany = (n: number) => ({
    reason: "too-many-terms",
    description: `holds ${n} terms besides its \`type:\` term; at most 8 are allowed`,
  });
  const bad: [string, { given: string; reason: string; description?: string }][] = [
    ["no term", { given: " \t ", reason: "terms-required", description: "must hold at least one term" }],
    [
      "an unknown type",
      {
        given: "type:server x",
        reason: "type-unknown",
        description:
          "names an unknown resource type; use one of billingAccount, cluster, disk, image, machine, network, project, virtualMachine, volume",
      },
    ],
    ["an empty type", { given: "type: x", reason: "type-unknown" }],
    [
      "two type terms",
      { given: "type:disk type:disk", reason: "type-repeated", description: "may hold at most one `type:` term" },
    ],
    ["9 terms", { given: "a b c d e f g h i", ...tooMany(9) }],
    ["9 terms beside a type term", { given: "type:disk a b c d e f g h i", ...tooMany(9) }],
    ["one term written 9 times", { given: "a a a a a A a a a", ...tooMany(9) }],
    ["128 one-letter terms (the longest query)", { given: "a ".repeat(128).trim(), ...tooMany(128) }],
  ];
  it.each(bad)("refuses %s with a 400 naming query", (_name, { given, reason, description }) => {
    let error: unknown;
    try {
      parseSearchQuery(given);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(Object.keys(searchQueryViolations), "a reason of the contract's catalogue").toContain(reason);
    expect((error as ApiError).toBody()).toMatchObject({
      code: 400,
      details: [{ fieldViolations: [{ field: "query", reason, ...(description ? { description } : {}) }] }, {}],
    });
  });
});
