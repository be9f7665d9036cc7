import { loadSpec } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { createHeaderCheck } from "../src/header-rules.js";
import type { Answer } from "../src/http.js";

const spec = loadSpec();
const required = structuredClone(spec);
(required.components as { headers: Record<string, { required?: boolean }> }).headers.RetryAfter!.required = true;

const answer = (status: number, headers: Record<string, string>): Answer => ({
  status,
  headers,
  text: JSON.stringify({ code: status, message: "m" }),
  json: { code: status, message: "m" },
});

describe("header_conformance", () => {
  it.each<[string, { given: { required: boolean; answer: Answer }; want: string | null | undefined }]>([
    [
      "a 429's Retry-After of seconds holds",
      { given: { required: false, answer: answer(429, { "retry-after": "2" }) }, want: null },
    ],
    [
      "a Retry-After that is not a number of seconds fails",
      {
        given: { required: false, answer: answer(503, { "retry-after": "soon" }) },
        want: 'retry-after: "soon" breaks its schema',
      },
    ],
    [
      "a header the spec does not require may be absent",
      { given: { required: false, answer: answer(429, {}) }, want: null },
    ],
    [
      "a required one may not",
      { given: { required: true, answer: answer(429, {}) }, want: "retry-after is required and missing" },
    ],
    [
      "a response that documents no header is not judged",
      { given: { required: true, answer: answer(200, {}) }, want: undefined },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(createHeaderCheck(given.required ? required : spec)("searchResources", given.answer)).toBe(want);
  });
});
