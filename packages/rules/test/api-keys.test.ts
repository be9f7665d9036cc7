/** API key values: made with the service's prefix and 32 random bytes, kept as SHA-256 only. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiKeyPrefix, hashApiKey, newApiKey } from "../src/api-keys.js";

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
