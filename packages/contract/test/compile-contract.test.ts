import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compileContract } from "../src/compile-contract.js";
import { ApiError, type FieldViolation, maxFieldViolations } from "../src/errors.js";
import { loadSpec, type OpenApiDocument } from "../src/spec.js";
import { errorBodyErrors } from "./support/error-body.js";

const contract = compileContract();

const bearer = { authorization: "Bearer k" };
const json = { ...bearer, "content-type": "application/json" };
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** Routes and checks a request; the ApiError that answers it, or undefined when it conforms. */
function check(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
): ApiError | undefined {
  const match = contract.route(method, url);
  if (match instanceof ApiError) return match;
  return contract.checkRequest(match, { url, headers, body });
}

const fields = (error: ApiError | undefined) =>
  (error?.toBody().details ?? [])
    .flatMap((d) => (d as { fieldViolations?: FieldViolation[] }).fieldViolations ?? [])
    .map((v) => [v.field, v.reason]);

describe("route", () => {
  it.each([
    ["a spec path", "GET", "/v1/resources/search?query=a", "searchResources"],
    [
      "any letter case and a trailing slash, as Express routes them",
      "GET",
      "/V1/Resources/Search/?query=a",
      "searchResources",
    ],
    ["path parameters, decoded", "PATCH", "/v1/projects/proj%2Dalpha/cluster-machines/cm%20x", "updateClusterMachine"],
  ])("finds %s", (_name, method, url, operationId) => {
    const match = contract.route(method, url);
    expect(match).not.toBeInstanceOf(ApiError);
    expect(!(match instanceof ApiError) && match.operation.operationId).toBe(operationId);
  });

  it("decodes path parameters", () => {
    const match = contract.route("PATCH", "/v1/projects/proj%2Dalpha/cluster-machines/cm%2Fx");
    expect(!(match instanceof ApiError) && match.params).toEqual({ projectId: "proj-alpha", id: "cm/x" });
  });

  it.each([
    ["an unknown path", "GET", "/v1/clusters", 404, undefined],
    ["an empty path parameter", "PATCH", "/v1/projects//cluster-machines/x", 404, undefined],
    [
      "a percent-encoded letter of the path itself (the stub's router reads the raw path)",
      "GET",
      "/v1/%72esources/search?query=a",
      404,
      undefined,
    ],
    ["a doubled slash", "GET", "//v1/resources/search?query=a", 404, undefined],
    ["a method the path does not have, with Allow", "DELETE", "/v1/api-keys", 405, "POST"],
    ["HEAD, which the spec does not describe", "HEAD", "/v1/resources/search?query=a", 405, "GET"],
    [
      "a path parameter that does not decode, before the method is looked at",
      "DELETE",
      "/v1/projects/p%FF/cluster-machines/x",
      400,
      undefined,
    ],
  ])("answers %s with %i", (_name, method, url, status, allow) => {
    const answer = contract.route(method, url);
    expect(answer).toBeInstanceOf(ApiError);
    expect((answer as ApiError).status).toBe(status);
    expect((answer as ApiError).headers.Allow).toBe(allow);
    expect(errorBodyErrors((answer as ApiError).toBody())).toEqual([]);
  });
});

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

describe("checkResponseBody", () => {
  it.each([
    [
      "a valid 500 ErrorBody",
      { operationId: "searchResources", status: 500, body: { code: 500, message: "internal error" } },
      [],
    ],
    [
      "a 503 without message",
      { operationId: "updateClusterMachine", status: 503, body: { code: 503 } },
      [["response.body.message", "required"]],
    ],
    [
      "a 502 with a string code",
      { operationId: "createApiKey", status: 502, body: { code: "502", message: "x" } },
      [["response.body.code", "type"]],
    ],
    [
      "an undocumented 501",
      { operationId: "searchResources", status: 501, body: { code: 501, message: "x" } },
      [["response.status", "undocumented-status"]],
    ],
    [
      "a 404 where the operation has none",
      { operationId: "searchResources", status: 404, body: { code: 404, message: "x" } },
      [["response.status", "undocumented-status"]],
    ],
    [
      "a 200 without body",
      { operationId: "searchResources", status: 200, body: undefined },
      [["response.body", "body"]],
    ],
    ["a valid 200", { operationId: "searchResources", status: 200, body: { results: [] } }, []],
    [
      "a 200 without required results",
      { operationId: "searchResources", status: 200, body: {} },
      [["response.body.results", "required"]],
    ],
  ])("%s", (_name, { operationId, status, body }, want) => {
    expect(contract.checkResponseBody(operationId, status, body).map((v) => [v.field, v.reason])).toEqual(want);
  });

  it("knows which statuses an operation documents", () => {
    expect(contract.documented("updateClusterMachine", 404)).toBe(true);
    expect(contract.documented("searchResources", 404)).toBe(false);
    expect(contract.documented("noSuchOperation", 200)).toBe(false);
  });

  it("never repeats the offending value", () => {
    const secret = "cak_NEVER-SHOWN";
    const text = JSON.stringify(
      contract.checkResponseBody("createApiKey", 500, { code: 500, message: 5, key: secret }),
    );
    expect(text).not.toContain(secret);
  });

  it("holds a search result to its own branch only (the discriminator), naming the field", () => {
    const cluster = { projectId: "p", dataCenterId: "dc", machineTypeId: "t", machineCount: 0 };
    const result = { resourceName: "projects/p/clusters/c", resourceType: "cluster", score: 50, cluster };
    expect(
      contract.checkResponseBody("searchResources", 200, { results: [result] }).map((v) => [v.field, v.reason]),
    ).toEqual([["response.body.results[0].cluster.id", "required"]]);
  });

  it("names a result whose resourceType is no branch", () => {
    const result = { resourceName: "x", resourceType: "spaceship", score: 1 };
    expect(
      contract.checkResponseBody("searchResources", 200, { results: [result] }).map((v) => [v.field, v.reason]),
    ).toEqual([["response.body.results[0]", "discriminator"]]);
  });
});

describe("checkResponse", () => {
  const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
  it.each([
    [
      "a valid JSON body",
      { status: 200, contentType: "application/json; charset=utf-8", body: bytes({ results: [] }) },
      [],
    ],
    [
      "a body that is not JSON",
      { status: 200, contentType: "text/html", body: Buffer.from("<html>") },
      [["response.header.content-type", "content-type"]],
    ],
    [
      "malformed JSON",
      { status: 200, contentType: "application/json", body: Buffer.from('{"results": [') },
      [["response.body", "malformed-json"]],
    ],
    [
      "malformed JSON with an undocumented status",
      { status: 201, contentType: "application/json", body: Buffer.from("{") },
      [
        ["response.status", "undocumented-status"],
        ["response.body", "malformed-json"],
      ],
    ],
    [
      "no body where one is documented",
      { status: 200, contentType: undefined, body: Buffer.alloc(0) },
      [["response.body", "body"]],
    ],
    [
      "compressed bytes read as they came",
      { status: 200, contentType: "application/json", body: gzipSync('{"results":[]}') },
      [["response.body", "malformed-json"]],
    ],
  ])("%s", (_name, response, want) => {
    expect(contract.checkResponse("searchResources", response).map((v) => [v.field, v.reason])).toEqual(want);
  });
});

describe("compileContract", () => {
  it("compiles the bundled spec, every operation", () => {
    expect(contract.operations.map((o) => `${o.method} ${o.operationId}`).sort()).toEqual([
      "GET searchResources",
      "PATCH updateClusterMachine",
      "POST createApiKey",
    ]);
  });

  it("fails at once, naming the place, when a schema does not compile", () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument;
    const schemas = spec.components.schemas as Record<string, { pattern?: string }>;
    schemas.ResourceId = { ...schemas.ResourceId, pattern: "([unclosed" };
    expect(() => compileContract({ spec })).toThrow(
      /PATCH \/v1\/projects\/\{projectId\}\/cluster-machines\/\{id\} parameters: the schema does not compile/,
    );
  });

  it("fails at once when a $ref leads nowhere", () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument;
    delete (spec.components.schemas as Record<string, unknown>).Cluster;
    expect(() => compileContract({ spec })).toThrow(
      /GET \/v1\/resources\/search response 200: the schema does not compile/,
    );
  });

  it("refuses a security scheme it cannot check, rather than letting requests through unchecked", () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument;
    (spec.components.securitySchemes as Record<string, unknown>).bearerAuth = { type: "oauth2", flows: {} };
    expect(() => compileContract({ spec })).toThrow(/security scheme 'bearerAuth' is not supported/);
  });
});
