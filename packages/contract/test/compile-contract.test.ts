import { errorBodyErrors } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api-error.js";
import { compileContract } from "../src/compile-contract.js";
import { loadSpec, type OpenApiDocument } from "../src/spec.js";
import { contract } from "./support/contract.js";

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
