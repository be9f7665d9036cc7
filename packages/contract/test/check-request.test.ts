import { errorBodyErrors } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import { maxFieldViolations } from "../src/field-violations.js";
import { bearer, check, fields, json, machine } from "./support/contract.js";

describe("checkRequest", () => {
  it.each([
    ["a search", "GET", "/v1/resources/search?query=train%20type:cluster", bearer, undefined],
    [
      "a PATCH",
      "PATCH",
      machine,
      json,
      { powerState: "POWERING_ON", priceHr: { value: "+.5" }, volumeIds: ["vol-a", "vol-b"] },
    ],
    [
      "a JSON media type with parameters",
      "POST",
      "/v1/api-keys",
      { ...bearer, "content-type": "Application/JSON; charset=utf-8" },
      { apikeyId: "ci-deploy-key" },
    ],
  ])("lets %s through", (_name, method, url, headers, body) => {
    expect(check(method, url, headers, body)).toBeUndefined();
  });

  it.each([
    ["no Authorization", "GET", "/v1/resources/search?query=a", {}, undefined, 401, "Authorization header required"],
    [
      "another scheme",
      "GET",
      "/v1/resources/search?query=a",
      { authorization: "Basic eDp5" },
      undefined,
      401,
      "Authorization header with scheme 'Bearer' required",
    ],
    [
      "a malformed bearer token",
      "GET",
      "/v1/resources/search?query=a",
      { authorization: "Bearer a b" },
      undefined,
      401,
      "Authorization header must be `Bearer <API key>`",
    ],
    [
      "a body of another media type",
      "POST",
      "/v1/api-keys",
      { ...bearer, "content-type": "text/plain" },
      undefined,
      415,
      "request body must be application/json",
    ],
    [
      "a body without Content-Type",
      "POST",
      "/v1/api-keys",
      bearer,
      undefined,
      415,
      "request body must be application/json",
    ],
    [
      "401 before 415",
      "POST",
      "/v1/api-keys",
      { "content-type": "text/plain" },
      undefined,
      401,
      "Authorization header required",
    ],
    [
      "a JSON request without its required body",
      "PATCH",
      machine,
      json,
      undefined,
      400,
      "invalid request: must have required property 'body'",
    ],
    [
      "a body on an operation that takes none (Content-Length)",
      "GET",
      "/v1/resources/search?query=a",
      { ...bearer, "content-length": "35" },
      undefined,
      400,
      "invalid request: this operation takes no request body",
    ],
    [
      "a body on an operation that takes none (Transfer-Encoding)",
      "GET",
      "/v1/resources/search?query=a",
      { ...bearer, "transfer-encoding": "chunked" },
      undefined,
      400,
      "invalid request: this operation takes no request body",
    ],
    [
      "a JSON body on an operation that takes none",
      "GET",
      "/v1/resources/search?query=a",
      { ...json, "content-length": "13" },
      { query: "a" },
      400,
      "invalid request: this operation takes no request body",
    ],
  ])("refuses %s", (_name, method, url, headers: Record<string, string>, body, status, message) => {
    const error = check(method, url, headers, body);
    expect(error?.status).toBe(status);
    expect(error?.message).toBe(message);
    expect(errorBodyErrors(error?.toBody())).toEqual([]);
  });

  it.each([
    [
      "an empty query",
      "GET",
      "/v1/resources/search?query=",
      undefined,
      [
        ["query", "minLength"],
        ["query", "pattern"],
      ],
    ],
    ["a repeated query", "GET", "/v1/resources/search?query=a&query=b", undefined, [["query", "type"]]],
    ["a query in bracket notation", "GET", "/v1/resources/search?query%5Bx%5D=1", undefined, [["query", "type"]]],
    ["no query", "GET", "/v1/resources/search", undefined, [["query", "required"]]],
    [
      "parameters before body fields",
      "PATCH",
      "/v1/projects/-bad/cluster-machines/x",
      { colour: "red" },
      [
        ["projectId", "pattern"],
        ["colour", "additionalProperties"],
      ],
    ],
    [
      "an enum value, a duplicate and an UNSPECIFIED target",
      "PATCH",
      machine,
      { powerState: "NOPE", state: "STATE_UNSPECIFIED", volumeIds: ["a", "a"] },
      [
        ["powerState", "enum"],
        ["state", "not"],
        ["volumeIds[1]", "uniqueItems"],
      ],
    ],
    ["an empty PATCH", "PATCH", machine, {}, [["", "minProperties"]]],
    ["a body that is not an object", "PATCH", machine, [], [["", "type"]]],
    [
      "an unknown query parameter, once the rest conforms",
      "POST",
      "/v1/api-keys?x=1&%5Bx%5D=2",
      { apikeyId: "abcd" },
      [
        ["x", "invalid"],
        ["[x]", "invalid"],
      ],
    ],
    [
      "not an unknown query parameter while the body breaks the spec",
      "POST",
      "/v1/api-keys?x=1",
      { apikeyId: "AB" },
      [
        ["apikeyId", "minLength"],
        ["apikeyId", "pattern"],
      ],
    ],
    [
      "a bad query after 1,000 empty pairs (node:querystring's default stops there)",
      "GET",
      `/v1/resources/search?query=ok${"&".repeat(1000)}&query=%01%02&evil=1`,
      undefined,
      [["query", "type"]],
    ],
    [
      "an unknown name after 1,000 empty pairs",
      "GET",
      `/v1/resources/search?query=ok${"&".repeat(1000)}&evil=1`,
      undefined,
      [["evil", "invalid"]],
    ],
    [
      "130,000 invalid volume ids: the bound alone, not one violation per item",
      "PATCH",
      machine,
      { volumeIds: Array.from({ length: 130_000 }, () => "!") },
      [["volumeIds", "maxItems"]],
    ],
    [
      "65 invalid volume ids: the bound alone",
      "PATCH",
      machine,
      { volumeIds: Array.from({ length: 65 }, () => "!") },
      [["volumeIds", "maxItems"]],
    ],
    [
      "100,000 unknown properties: the bound alone",
      "PATCH",
      machine,
      Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1])),
      [["", "maxProperties"]],
    ],
  ])("answers %s with 400 naming each field", (_name, method, url, body, want) => {
    const error = check(method, url, body === undefined ? bearer : json, body);
    expect(error?.status).toBe(400);
    expect(fields(error)).toEqual(want);
    expect(errorBodyErrors(error?.toBody())).toEqual([]);
  });

  it("names each bad item within maxItems", () => {
    const error = check("PATCH", machine, json, {
      volumeIds: Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? `!${i}` : `vol-${i}`)),
    });
    expect(fields(error)).toEqual(Array.from({ length: 32 }, (_, i) => [`volumeIds[${2 * i}]`, "pattern"]));
  });

  it("names every unknown property up to the bound, and lists at most maxFieldViolations of them", () => {
    const error = check(
      "PATCH",
      machine,
      json,
      Object.fromEntries(Array.from({ length: 4 + maxFieldViolations }, (_, i) => [`k${i}`, 1])),
    );
    expect(error?.message).toBe(
      `request has ${4 + maxFieldViolations} invalid fields; the first ${maxFieldViolations} are listed`,
    );
    expect(fields(error)).toEqual(
      Array.from({ length: maxFieldViolations }, (_, i) => [`k${i}`, "additionalProperties"]),
    );
    expect(errorBodyErrors(error?.toBody())).toEqual([]);
  });

  it("lists an enum's allowed values, as the stub's validator does", () => {
    expect(check("PATCH", machine, json, { powerState: "NOPE" })?.message).toBe(
      "invalid request: must be equal to one of the allowed values: MACHINE_POWER_STATE_UNSPECIFIED, ON, OFF, POWERING_ON, POWERING_OFF, REBOOTING",
    );
  });
});
