import { describe, expect, it } from "vitest";
import type { Answer } from "../src/http.js";
import { keyCreationVerdict } from "../src/key-probes.js";

const answer = (status: number, json: unknown): Answer => ({ status, headers: {}, text: JSON.stringify(json), json });
const conflict = (reason: string) =>
  answer(409, {
    code: 409,
    message: "exists",
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason }],
  });

describe("keyCreationVerdict", () => {
  it.each<[string, { given: Answer; want: string | null | undefined }]>([
    ["a key named by its apikeyId", { given: answer(200, { id: "ci-key", key: "cak_x" }), want: null }],
    [
      "a key named otherwise",
      {
        given: answer(200, { id: "keys/ci-key", key: "cak_x" }),
        want: 'the key created for apikeyId ci-key has id "keys/ci-key"',
      },
    ],
    ["a 409 that says ALREADY_EXISTS", { given: conflict("ALREADY_EXISTS"), want: null }],
    [
      "a 409 with another reason",
      {
        given: conflict("CONFLICT"),
        want: 'the 409 for apikeyId ci-key has ErrorInfo reasons ["CONFLICT"], not ALREADY_EXISTS',
      },
    ],
    ["another status: not this check's", { given: answer(403, { code: 403 }), want: undefined }],
  ])("%s", (_name, { given, want }) => {
    expect(keyCreationVerdict("ci-key", given)).toBe(want);
  });
});
