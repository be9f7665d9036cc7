/** The journal's path filter: `*` for any characters, matched without backtracking. */
import { describe, expect, it } from "vitest";
import { wildcardMatch } from "../src/request-match.js";

describe("wildcardMatch", () => {
  const long = `/${"a".repeat(2000)}`;
  it.each([
    ["no wildcard: the same path", "/v1/api-keys", "/v1/api-keys", true],
    ["no wildcard: another path", "/v1/api-keys", "/v1/api-keys/x", false],
    ["* alone", "*", "/anything", true],
    ["* matches nothing too", "/v1/*", "/v1/", true],
    ["a segment", "/v1/projects/*/cluster-machines/*", "/v1/projects/p/cluster-machines/m", true],
    ["* spans slashes", "/v1/*", "/v1/projects/p/cluster-machines/m", true],
    ["the prefix must start it", "/v2/*", "/v1/projects", false],
    ["the suffix must end it", "*/m", "/v1/projects/m/x", false],
    ["prefix and suffix may not overlap", "/ab*ba", "/aba", false],
    ["a part may not reach into the suffix", "*ab*b", "xab", false],
    ["the leftmost place of a part leaves room for the rest", "*a*ab*", "xaab", true],
    ["repeated parts", "*a*a*a*", "/aXaXa", true],
    ["too few of a repeated part", "*a*a*a*a*", "/aXaXa", false],
    ["consecutive stars", "/v1/**/m", "/v1/p/m", true],
    ["regular expression characters are plain", "/v1/(a|b)*.?", "/v1/(a|b)x.?", true],
    ["a dot is no wildcard", "/v1/a.c", "/v1/abc", false],
    ["2,000 characters, a pattern a regular expression backtracks on for an hour: no b", "*a*a*a*b", long, false],
    ["2,000 characters, the same pattern that matches", "*a*a*a*b", `${long}b`, true],
  ])("%s", (_name, pattern, text, want) => {
    expect(wildcardMatch(pattern, text)).toBe(want);
  });
});
