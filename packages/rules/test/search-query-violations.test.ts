/** The catalogue of a refused search query: each factory's 400 and the README's table of reasons. */
import { readFileSync } from "node:fs";
import type { ApiError, FieldViolation } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import {
  searchQueryViolations,
  searchTermsRequired,
  searchTooManyTerms,
  searchTypeRepeated,
  searchTypeUnknown,
} from "../src/search-query-violations.js";

/** The status, message and field violations of an answer. */
const summary = (error: ApiError) => ({
  status: error.status,
  message: error.message,
  violations: (error.toBody().details ?? []).flatMap((d) =>
    "fieldViolations" in d ? (d.fieldViolations as FieldViolation[]) : [],
  ),
});

describe("factories", () => {
  it.each<[string, { given: ApiError; want: { description: string; reason: string } }]>([
    [
      "searchTermsRequired",
      { given: searchTermsRequired(), want: { description: "must hold at least one term", reason: "terms-required" } },
    ],
    [
      "searchTypeRepeated",
      {
        given: searchTypeRepeated(),
        want: { description: "may hold at most one `type:` term", reason: "type-repeated" },
      },
    ],
    [
      "searchTypeUnknown, listing the types",
      {
        given: searchTypeUnknown(["cluster", "disk"]),
        want: { description: "names an unknown resource type; use one of cluster, disk", reason: "type-unknown" },
      },
    ],
    [
      "searchTooManyTerms, with the count and the limit",
      {
        given: searchTooManyTerms(9, 8),
        want: {
          description: "holds 9 terms besides its `type:` term; at most 8 are allowed",
          reason: "too-many-terms",
        },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(summary(given)).toEqual({
      status: 400,
      message: `invalid request: ${want.description}`,
      violations: [{ field: "query", ...want }],
    });
    expect(searchQueryViolations).toHaveProperty(want.reason);
  });
});

describe("the README's table of search query reasons", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const rows = readme.split("\n").filter((line) => /^\| `[a-z-]+` \| `query` \|/.test(line));
  it.each(Object.entries(searchQueryViolations))("lists %s with its field", (reason, { field }) => {
    expect(rows.find((line) => line.startsWith(`| \`${reason}\` | \`${field}\` |`))).toBeDefined();
  });
  it("lists no other", () => {
    expect(rows.map((line) => line.split("`")[1]).sort()).toEqual(Object.keys(searchQueryViolations).sort());
  });
});
