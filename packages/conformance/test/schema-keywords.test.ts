import { describe, expect, it } from "vitest";
import { checkKeywords } from "../src/schema-keywords.js";

describe("checkKeywords", () => {
  it.each<[string, { given: Record<string, unknown>; want: RegExp | undefined }]>([
    ["keywords the generators build in", { given: { type: "string", pattern: "^a$", maxLength: 3 }, want: undefined }],
    ["annotations", { given: { description: "d", example: "x", deprecated: true, readOnly: true }, want: undefined }],
    ["extensions", { given: { "x-internal": true }, want: undefined }],
    ["an unsupported keyword", { given: { prefixItems: [] }, want: /^#\/x: keyword prefixItems is not supported$/ }],
    ["multipleOf, unsupported too", { given: { multipleOf: 2 }, want: /keyword multipleOf is not supported/ }],
    ["an unknown keyword", { given: { minimumLength: 3 }, want: /^#\/x: unknown keyword minimumLength$/ }],
  ])("%s", (_name, { given, want }) => {
    if (want) expect(() => checkKeywords(given, "#/x")).toThrow(want);
    else expect(() => checkKeywords(given, "#/x")).not.toThrow();
  });
});
