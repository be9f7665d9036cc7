import { compileContract, loadSpec } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import {
  type Access,
  authVerdict,
  negativeVerdict,
  responseVerdicts,
  searchVerdicts,
  type Verdicts,
  violationsOf,
} from "../src/checks.js";
import type { Answer } from "../src/http.js";

const contract = compileContract({ spec: loadSpec() });
const json = "application/json";

/** An answer with a JSON body (or the text as it is, when `body` is a string). */
const answer = (status: number, body: unknown, contentType = json): Answer => {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return { status, headers: { "content-type": contentType }, text, json: typeof body === "string" ? undefined : body };
};
const badRequest = (...fields: string[]) => ({
  code: 400,
  message: "invalid request",
  details: [
    {
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: fields.map((field) => ({ field, description: "x" })),
    },
  ],
});
const result = (resourceName: string, resourceType: string, score: number) => ({ resourceName, resourceType, score });

describe("responseVerdicts", () => {
  it.each<[string, { given: Answer; want: Verdicts }]>([
    [
      "a documented 401 error body passes every check",
      {
        given: answer(401, { code: 401, message: "missing or invalid API key" }),
        want: {
          not_a_server_error: null,
          status_code_conformance: null,
          content_type_conformance: null,
          response_schema_conformance: null,
          error_body_conformance: null,
          no_leaked_internals: null,
        },
      },
    ],
    [
      "a 500 is a server error",
      { given: answer(500, { code: 500, message: "internal" }), want: { not_a_server_error: "answered 500" } },
    ],
    [
      "an undocumented status",
      {
        given: answer(418, { code: 418, message: "teapot" }),
        want: { status_code_conformance: expect.stringMatching(/status 418 is not documented/) },
      },
    ],
    [
      "an error body whose code is not the status",
      {
        given: answer(404, { code: 400, message: "not found" }),
        want: { error_body_conformance: "a 404 whose body's code is 400" },
      },
    ],
    [
      "a stack trace in a failure",
      {
        given: answer(400, { code: 400, message: "TypeError: x\n    at parse (/srv/app.js:12:19)" }),
        want: { no_leaked_internals: "the body shows a stack trace" },
      },
    ],
    [
      "an HTML page for a failure",
      {
        given: answer(404, "<!DOCTYPE html><html><body>Not found</body></html>", "text/html"),
        want: { no_leaked_internals: "the body is an HTML page" },
      },
    ],
    [
      "a 200 without its results",
      {
        given: answer(200, { result: [] }),
        want: { response_schema_conformance: expect.stringMatching(/must have required property 'results'/) },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(responseVerdicts(contract, "searchResources", given)).toMatchObject(want);
  });

  it("judges a success by the status, media type and schema checks only", () => {
    expect(Object.keys(responseVerdicts(contract, "searchResources", answer(200, { results: [] })))).toEqual([
      "not_a_server_error",
      "status_code_conformance",
      "content_type_conformance",
      "response_schema_conformance",
    ]);
  });
});

describe("violationsOf", () => {
  it.each<[string, { given: unknown; want: string[] }]>([
    [
      "the fields of a BadRequest detail",
      { given: badRequest("priceHr.value", "volumeIds[2]"), want: ["priceHr.value", "volumeIds[2]"] },
    ],
    ["none in a body without details", { given: { code: 404, message: "not found" }, want: [] }],
    ["none in no body", { given: undefined, want: [] }],
  ])("%s", (_name, { given, want }) => {
    expect(violationsOf(given).map((v) => v.field)).toEqual(want);
  });
});

describe("negativeVerdict", () => {
  it.each<[string, { given: Answer; want: string | null }]>([
    ["a 400 naming the field", { given: answer(400, badRequest("priceHr.value")), want: null }],
    [
      "a 400 naming another field",
      {
        given: answer(400, badRequest("powerState")),
        want: 'body priceHr.value pattern: the 400 names ["powerState"], not "priceHr.value"',
      },
    ],
    ["a 200", { given: answer(200, {}), want: "body priceHr.value pattern: answered 200, not 400" }],
  ])("%s", (_name, { given, want }) => {
    expect(negativeVerdict(given, "priceHr.value", "body priceHr.value pattern")).toBe(want);
  });
});

describe("authVerdict", () => {
  it.each<[string, { given: number; want: string | null }]>([
    ["a 401", { given: 401, want: null }],
    ["a 200", { given: 200, want: "an unknown key: answered 200, not 401" }],
    ["a 403", { given: 403, want: "an unknown key: answered 403, not 401" }],
  ])("%s", (_name, { given, want }) => {
    expect(authVerdict(answer(given, {}), "an unknown key")).toBe(want);
  });
});

describe("searchVerdicts", () => {
  const access: Access = { projects: new Set(["p1"]), billingAccounts: new Set(["b1"]), complete: true };
  const types = ["cluster", "project", "billingAccount"];
  it.each<[string, { given: { query: string; results: unknown[]; access?: Access }; want: Verdicts }]>([
    [
      "results within access, best first then by name",
      {
        given: {
          query: "alpha",
          results: [
            result("projects/p1", "project", 9),
            result("billingAccounts/b1", "billingAccount", 5),
            result("projects/p1/clusters/c", "cluster", 5),
          ],
          access,
        },
        want: { search_access: null, search_order: null },
      },
    ],
    [
      "a result outside the caller's projects",
      {
        given: { query: "alpha", results: [result("projects/p2", "project", 1)], access },
        want: {
          search_access: "results outside the caller's projects and billing accounts: projects/p2",
          search_order: null,
        },
      },
    ],
    [
      "access not checked when it could not all be listed",
      {
        given: {
          query: "alpha",
          results: [result("projects/p2", "project", 1)],
          access: { ...access, complete: false },
        },
        want: { search_order: null },
      },
    ],
    [
      "a worse result first",
      {
        given: {
          query: "alpha",
          results: [result("projects/p1", "project", 1), result("billingAccounts/b1", "billingAccount", 2)],
        },
        want: { search_order: "result 1 (billingAccounts/b1, score 2) comes after projects/p1 (score 1)" },
      },
    ],
    [
      "equal scores out of code point order",
      {
        given: {
          query: "alpha",
          results: [result("projects/p1/z", "cluster", 1), result("projects/p1/a", "cluster", 1)],
        },
        want: { search_order: "result 1 (projects/p1/a, score 1) comes after projects/p1/z (score 1)" },
      },
    ],
    [
      "a result of another type than the type: term",
      {
        given: { query: "alpha TYPE:Cluster", results: [result("projects/p1", "project", 1)] },
        want: { search_order: "a project result for the term type:cluster" },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(searchVerdicts(answer(200, { results: given.results }), given.query, given.access, types)).toEqual(want);
  });

  it("says nothing of a search that did not answer 200 with results", () => {
    expect(searchVerdicts(answer(400, { code: 400, message: "x" }), "a", access, types)).toEqual({});
  });
});
