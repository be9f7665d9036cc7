/** Anything of a key's form, however it is spelled, redacted. */
import { describe, expect, it } from "vitest";
import { redactKeys } from "../src/key-redaction.js";

describe("redactKeys", () => {
  it.each<[string, { given: string; want: string }]>([
    ["a key", { given: "cak_AbC-12_xyz", want: "[redacted]" }],
    ["a key in a path", { given: "/v1/projects/cak_AbC-12", want: "/v1/projects/[redacted]" }],
    ["its _ percent-encoded", { given: "/p/cak%5FAbC/x", want: "/p/[redacted]" }],
    ["its _ percent-encoded in lower case", { given: "/p/cak%5fAbC", want: "/p/[redacted]" }],
    ["in upper case", { given: "CAK_ABC", want: "[redacted]" }],
    ["in mixed case", { given: "cAk_abc", want: "[redacted]" }],
    ["its prefix wholly percent-encoded", { given: "%63%61%6B%5Fabc", want: "[redacted]" }],
    ["a character of its body percent-encoded", { given: "cak_ab%2Dcd", want: "[redacted]" }],
    ["two keys", { given: "cak_a and CAK_b", want: "[redacted] and [redacted]" }],
    ["a key in a query value", { given: "key=cak_abc&x=1", want: "key=[redacted]&x=1" }],
    ["no key", { given: "/v1/resources/search", want: "/v1/resources/search" }],
    ["an underscore that is no key", { given: "/v1/my_project", want: "/v1/my_project" }],
    ["a percent-escape that is no key", { given: "/v1/a%20b", want: "/v1/a%20b" }],
    ["a prefix cut short", { given: "cak%5", want: "cak%5" }],
  ])("%s", (_name, { given, want }) => {
    expect(redactKeys(given)).toBe(want);
  });
});
