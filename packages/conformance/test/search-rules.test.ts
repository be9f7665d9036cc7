import { describe, expect, it } from "vitest";
import type { Verdicts } from "../src/checks.js";
import type { Answer } from "../src/http.js";
import { queryOutcome, queryRuleVerdict, searchRuleVerdicts } from "../src/search-rules.js";

const answer = (status: number, json: unknown): Answer => ({ status, headers: {}, text: JSON.stringify(json), json });
const queryViolation = (reason: string) =>
  answer(400, {
    code: 400,
    message: "invalid request",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [{ field: "query", description: "x", reason }],
      },
    ],
  });
const cluster = (score: number, resourceName = "projects/p1/clusters/cl-train-01") => ({
  resourceType: "cluster",
  resourceName,
  score,
  cluster: { id: "cl-train-01", projectId: "p1", name: "Training", dataCenterId: "dc-north", machineCount: 0 },
});

describe("queryOutcome", () => {
  it.each<[string, { given: string; want: unknown }]>([
    [
      "terms lowercased, the type apart",
      { given: "Train TYPE:Cluster", want: { query: { terms: ["train"], type: "cluster" } } },
    ],
    [
      "8 terms and a type: term",
      { given: `${"a ".repeat(8)}type:disk`, want: { query: expect.objectContaining({ type: "disk" }) } },
    ],
    [
      "9 terms, a repeat counted each time",
      {
        given: "a ".repeat(9),
        want: { refused: [expect.objectContaining({ field: "query", reason: "too-many-terms" })] },
      },
    ],
    ["only white space", { given: "   ", want: { refused: [expect.objectContaining({ reason: "terms-required" })] } }],
    [
      "two type: terms",
      { given: "a type:disk type:disk", want: { refused: [expect.objectContaining({ reason: "type-repeated" })] } },
    ],
    [
      "an unknown type",
      { given: "a type:nothing", want: { refused: [expect.objectContaining({ reason: "type-unknown" })] } },
    ],
    ["white space other than the space: left open", { given: "a\u00a0b", want: undefined }],
  ])("%s", (_name, { given, want }) => {
    expect(queryOutcome(given)).toEqual(want);
  });
});

describe("queryRuleVerdict", () => {
  it.each<[string, { given: { query: string; answer: Answer }; want: string | null | undefined }]>([
    ["an accepted query answered 200", { given: { query: "alpha", answer: answer(200, { results: [] }) }, want: null }],
    [
      "an accepted query refused",
      {
        given: { query: `${"a ".repeat(8)}type:disk`, answer: queryViolation("too-many-terms") },
        want: 'a query the rules accept was refused with 400 (naming ["query"])',
      },
    ],
    [
      "a refused query answered 400 naming query",
      { given: { query: "  ", answer: queryViolation("whatever") }, want: null },
    ],
    [
      "a refused query answered 200",
      {
        given: { query: "a type:nothing", answer: answer(200, { results: [] }) },
        want: "a query the rules refuse (type-unknown) answered 200, not 400",
      },
    ],
    [
      "a 400 naming another field",
      {
        given: { query: "  ", answer: answer(400, { code: 400, message: "x" }) },
        want: "the 400 does not name query (terms-required)",
      },
    ],
    [
      "too many terms under another reason",
      {
        given: { query: "a ".repeat(9), answer: queryViolation("maxItems") },
        want: 'the 400 for more than 8 terms names query with reason "maxItems", not "too-many-terms"',
      },
    ],
    [
      "too many terms, as the spec names it",
      { given: { query: "a ".repeat(9), answer: queryViolation("too-many-terms") }, want: null },
    ],
    ["no answer at all: not this check's", { given: { query: "  ", answer: answer(0, undefined) }, want: undefined }],
  ])("%s", (_name, { given, want }) => {
    expect(queryRuleVerdict(given.answer, given.query)).toBe(want);
  });
});

describe("searchRuleVerdicts", () => {
  it.each<[string, { given: { query: string; results: unknown[] }; want: Verdicts }]>([
    [
      "every result matches and is scored as the spec says",
      {
        given: { query: "TRAIN north", results: [cluster(55)] },
        want: { search_resource_name: null, search_matching: null, search_score: null },
      },
    ],
    [
      "a type: term alone scores 0",
      {
        given: { query: "type:cluster", results: [cluster(0)] },
        want: { search_resource_name: null, search_matching: null, search_score: null },
      },
    ],
    [
      "a result that does not match a term",
      {
        given: { query: "train south", results: [cluster(40)] },
        want: {
          search_resource_name: null,
          search_matching: "projects/p1/clusters/cl-train-01 matches no field for 'south'",
          search_score: null,
        },
      },
    ],
    [
      "a score that is not the mean of the best matches, rounded down",
      {
        given: { query: "train north", results: [cluster(56)] },
        want: {
          search_resource_name: null,
          search_matching: null,
          search_score: "projects/p1/clusters/cl-train-01 scored 56, not 55",
        },
      },
    ],
    [
      "a resourceName that is not the resource's path",
      {
        given: { query: "type:cluster", results: [cluster(0, "projects/p1/cluster/cl-train-01")] },
        want: {
          search_resource_name:
            "projects/p1/cluster/cl-train-01 for the cluster cl-train-01, not projects/p1/clusters/cl-train-01",
          search_matching: null,
          search_score: null,
        },
      },
    ],
    [
      "matching and score left alone for a query that is not ASCII",
      { given: { query: "trÄin", results: [cluster(0)] }, want: { search_resource_name: null } },
    ],
    ["nothing of no results", { given: { query: "train", results: [] }, want: {} }],
  ])("%s", (_name, { given, want }) => {
    expect(searchRuleVerdicts(answer(200, { results: given.results }), given.query)).toEqual(want);
  });
});
