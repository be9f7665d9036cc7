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

describe("redactKeys, at any depth and with `also`", () => {
  it.each<[string, { given: unknown; want: unknown }]>([
    ["a key in a text", { given: "pasted cak_abc-123 by mistake", want: "pasted [redacted] by mistake" }],
    ["its prefix in capitals", { given: "CAK_ABC123 and Cak_x", want: "[redacted] and [redacted]" }],
    ["its underscore percent-encoded", { given: "/v1/x/cak%5Fabc y", want: "/v1/x/[redacted] y" }],
    ["the escape in lower case", { given: "?k=cak%5fabc&n=1", want: "?k=[redacted]&n=1" }],
    ["every character of it percent-encoded", { given: "%63%41%6B%5F%61bc", want: "[redacted]" }],
    ["a percent-encoded character in its tail", { given: "cak_ab%2Fcd end", want: "[redacted] end" }],
    ["nothing of the form of a key", { given: "cake_ and cak-x", want: "cake_ and cak-x" }],
    [
      "a key as a property name and a value, at any depth",
      {
        given: { labels: { CAK_NAME: ["cak_in-array"], ok: "v" }, n: 1, ok: true, none: null },
        want: { labels: { "[redacted]": ["[redacted]"], ok: "v" }, n: 1, ok: true, none: null },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(redactKeys(given)).toEqual(want);
  });

  it("redacts what `also` says first, then the form of a key", () => {
    const also = (text: string) => text.split("my-secret").join("[redacted]");
    expect(redactKeys({ a: "x my-secret cak_1" }, also)).toEqual({ a: "x [redacted] [redacted]" });
  });

  it("takes linear time on a text that almost is a key, many times over", () => {
    const text = "cak%5".repeat(200_000);
    expect(redactKeys(text)).toBe(text);
  });
});
