import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api-error.js";
import { createRouteTable } from "../src/routes.js";

const table = createRouteTable([
  { method: "GET", template: "/v1/things/{id}", operation: "getThing" },
  { method: "PATCH", template: "/v1/things/{id}", operation: "updateThing" },
  { method: "GET", template: "/v1/things/search", operation: "searchThings" },
  { method: "POST", template: "/v1/a(b)", operation: "special" },
]);

describe("createRouteTable", () => {
  it.each<[string, { given: [string, string]; want: { operation: string; params: Record<string, string> } }]>([
    [
      "a parametric path",
      { given: ["GET", "/v1/things/t1?x=1"], want: { operation: "getThing", params: { id: "t1" } } },
    ],
    [
      "a static path before a parametric one",
      { given: ["GET", "/v1/things/search"], want: { operation: "searchThings", params: {} } },
    ],
    [
      "any letter case and a trailing slash",
      { given: ["PATCH", "/V1/THINGS/t2/"], want: { operation: "updateThing", params: { id: "t2" } } },
    ],
    [
      "parameters percent-decoded",
      { given: ["GET", "/v1/things/a%2Fb"], want: { operation: "getThing", params: { id: "a/b" } } },
    ],
    [
      "path-to-regexp's special characters as literal text",
      { given: ["POST", "/v1/a(b)"], want: { operation: "special", params: {} } },
    ],
  ])("routes %s", (_name, { given, want }) => {
    const match = table.route(...given);
    expect(match).not.toBeInstanceOf(ApiError);
    expect(match).toMatchObject(want);
  });

  it.each<[string, { given: [string, string]; want: { status: number; reason: string; allow?: string } }]>([
    ["an unknown path", { given: ["GET", "/v1/other"], want: { status: 404, reason: "NOT_FOUND" } }],
    [
      "a method the path does not have",
      { given: ["DELETE", "/v1/things/t1"], want: { status: 405, reason: "METHOD_NOT_ALLOWED", allow: "GET, PATCH" } },
    ],
    [
      "a parameter that does not decode, before the method",
      { given: ["DELETE", "/v1/things/%FF"], want: { status: 400, reason: "MALFORMED_URI" } },
    ],
  ])("answers %s", (_name, { given, want }) => {
    const answer = table.route(...given) as ApiError;
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer.status).toBe(want.status);
    expect(answer.toBody().details).toEqual([expect.objectContaining({ reason: want.reason })]);
    expect(answer.headers.Allow).toBe(want.allow);
  });
});
