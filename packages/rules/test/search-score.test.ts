/** How search scores a match: the six match scores, a term's best match and a result's mean, as the spec states. */
import { loadSpec } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { maxSearchResults } from "../src/search-results.js";
import { matchScores, maxSearchScore, resultScore, termScore, valueScore } from "../src/search-score.js";

describe("matchScores", () => {
  it("are the spec's numbers, each primary score above every other one", () => {
    const operation = loadSpec().paths["/v1/resources/search"]?.get as { description?: string } | undefined;
    const search = (operation?.description ?? "").replace(/\s+/g, " ");
    const [exact, prefix, substring] = matchScores.primary;
    expect(search).toContain(
      `${exact} for an exact id or name match, ${prefix} for a prefix of the id or name, ${substring} for a substring`,
    );
    expect(search).toContain(`and ${matchScores.other.join(", ").replace(/, (\d+)$/, " and $1")} for an exact, prefix`);
    expect(search).toContain(`an integer from 0 to ${maxSearchScore}`);
    expect(search).toContain(`At most ${maxSearchResults} results are returned`);
    expect(Math.min(...matchScores.primary)).toBeGreaterThan(Math.max(...matchScores.other));
  });
});

describe("valueScore", () => {
  it.each<[string, { given: [value: string, term: string, primary: boolean]; want: number }]>([
    ["an exact match of an id or name", { given: ["cl-train-01", "cl-train-01", true], want: 100 }],
    ["a prefix of an id or name", { given: ["cl-train-01", "cl-", true], want: 80 }],
    ["a substring of an id or name", { given: ["cl-train-01", "train", true], want: 60 }],
    ["an exact match of another field", { given: ["dc-north", "dc-north", false], want: 50 }],
    ["a prefix of another field", { given: ["dc-north", "dc", false], want: 40 }],
    ["a substring of another field", { given: ["dc-north", "north", false], want: 30 }],
    ["no match", { given: ["dc-north", "south", true], want: 0 }],
    ["a term longer than the value", { given: ["dc", "dc-north", true], want: 0 }],
  ])("%s", (_name, { given, want }) => {
    expect(valueScore(...given)).toBe(want);
  });
});

describe("termScore", () => {
  const values = {
    primary: new Set(["cl-train-01", "training"]),
    other: new Set(["dc-north", "projects/p1/clusters/cl-train-01"]),
  };
  it.each<[string, { given: string; want: number }]>([
    ["cl-train-01 scores 100", { given: "cl-train-01", want: 100 }],
    ["train scores 80", { given: "train", want: 80 }],
    ["rain scores 60", { given: "rain", want: 60 }],
    ["dc-north scores 50", { given: "dc-north", want: 50 }],
    ["dc- scores 40", { given: "dc-", want: 40 }],
    ["north scores 30", { given: "north", want: 30 }],
    ["projects scores 40", { given: "projects", want: 40 }],
    ["nowhere scores 0", { given: "nowhere", want: 0 }],
  ])("%s", (_name, { given, want }) => {
    expect(termScore(values, given)).toBe(want);
  });
});

describe("resultScore", () => {
  it.each<[string, { given: number[]; want: number }]>([
    ["no term (a type: term alone)", { given: [], want: 0 }],
    ["one term", { given: [80], want: 80 }],
    ["the mean, rounded down", { given: [100, 30, 30], want: 53 }],
    ["a term written twice counts twice", { given: [100, 100, 40], want: 80 }],
    ["every term exact", { given: [100, 100, 100, 100, 100, 100, 100, 100], want: 100 }],
  ])("%s", (_name, { given, want }) => {
    expect(resultScore(given)).toBe(want);
  });
});
