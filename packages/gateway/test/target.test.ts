/** The target forwarded without the spec's checks: origin-form, dot segments removed, or refused. */
import { ApiError } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { normalizeTarget, removeDotSegments } from "../src/target.js";

describe("normalizeTarget", () => {
  it.each<[string, { given: string; want: string }]>([
    ["an origin-form path stays", { given: "/v1/other?x=1", want: "/v1/other?x=1" }],
    ["absolute-form becomes origin-form", { given: "http://evil.example/v1/api-keys", want: "/v1/api-keys" }],
    ["absolute-form with a query", { given: "HTTPS://evil.example:8443/v1/x?a=b", want: "/v1/x?a=b" }],
    ["absolute-form without a path", { given: "http://evil.example", want: "/" }],
    ["a dot-dot segment", { given: "/v1/x/../api-keys", want: "/v1/api-keys" }],
    ["a dot segment", { given: "/v1/./api-keys", want: "/v1/api-keys" }],
    ["percent-encoded dots", { given: "/v1/x/%2e%2E/api-keys", want: "/v1/api-keys" }],
    ["dot-dot above the root", { given: "/../../v1/api-keys", want: "/v1/api-keys" }],
    ["a trailing dot-dot keeps a slash", { given: "/v1/api-keys/x/..", want: "/v1/api-keys/" }],
    ["dots in the query are left alone", { given: "/v1/x?next=/../y", want: "/v1/x?next=/../y" }],
    ["dots inside a segment are not dot segments", { given: "/v1/a..b/.c", want: "/v1/a..b/.c" }],
  ])("%s", (_name, { given, want }) => {
    expect(normalizeTarget(given)).toBe(want);
  });

  it.each<[string, string]>([
    ["a raw fragment", "/v1/api-keys#x"],
    ["a backslash", "/v1\\api-keys"],
    ["asterisk-form", "*"],
    ["authority-form", "evil.example:443"],
  ])("refuses %s with 400 INVALID_REQUEST_TARGET", (_name, given) => {
    const got = normalizeTarget(given);
    expect(got).toBeInstanceOf(ApiError);
    expect((got as ApiError).status).toBe(400);
    expect((got as ApiError).toBody().details).toContainEqual(
      expect.objectContaining({ reason: "INVALID_REQUEST_TARGET" }),
    );
  });
});

describe("removeDotSegments", () => {
  it.each<[string, string]>([
    ["/a/b/c/./../../g", "/a/g"],
    ["/mid/content=5/../6", "/mid/6"],
    ["/", "/"],
    ["/..", "/"],
  ])("%s → %s (RFC 3986 §5.2.4)", (given, want) => {
    expect(removeDotSegments(given)).toBe(want);
  });
});
