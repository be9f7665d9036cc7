/** API key values: made with the service's prefix and 32 random bytes, kept as SHA-256 only. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiKeyPrefix, hashApiKey, newApiKey } from "../src/api-keys.js";
import { redactKeys } from "../src/key-redaction.js";

describe("hashApiKey", () => {
  it.each<[string, { given: string; want: string }]>([
    ["the empty string", { given: "", want: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" }],
    ["a key", { given: "cak_test", want: createHash("sha256").update("cak_test").digest("hex") }],
    [
      "a key of non-ASCII characters, as UTF-8",
      { given: "cak_é", want: createHash("sha256").update(Buffer.from("cak_é", "utf8")).digest("hex") },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(hashApiKey(given)).toBe(want);
    expect(hashApiKey(given)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("newApiKey", () => {
  it.each<[string, { given: () => string; want: RegExp }]>([
    ["has the prefix and 32 bytes of base64url", { given: newApiKey, want: /^cak_[A-Za-z0-9_-]{43}$/ }],
    ["the prefix is cak_", { given: () => apiKeyPrefix, want: /^cak_$/ }],
  ])("%s", (_name, { given, want }) => {
    expect(given()).toMatch(want);
  });

  it("is new each time", () => {
    const keys = new Set(Array.from({ length: 100 }, newApiKey));
    expect(keys.size).toBe(100);
  });
});

describe("redactKeys", () => {
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
