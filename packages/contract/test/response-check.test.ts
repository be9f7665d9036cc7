import { describe, expect, it } from "vitest";
import { createResponseCheck, responseViolations, upstreamContractError } from "../src/response-check.js";

describe("createResponseCheck", () => {
  const check = createResponseCheck();
  it.each([
    ["a valid 500 ErrorBody", { operationId: "searchResources", status: 500, body: { code: 500, message: "internal error" } }, []],
    ["a 503 without message", { operationId: "updateClusterMachine", status: 503, body: { code: 503 } }, [["response.body.message", "required"]]],
    ["a 502 with a string code", { operationId: "createApiKey", status: 502, body: { code: "502", message: "x" } }, [["response.body.code", "type"]]],
    ["an undocumented 501", { operationId: "searchResources", status: 501, body: { code: 501, message: "x" } }, [["response.status", "undocumented-status"]]],
    ["a 404 where the operation has none", { operationId: "searchResources", status: 404, body: { code: 404, message: "x" } }, [["response.status", "undocumented-status"]]],
    ["a 200 without body", { operationId: "searchResources", status: 200, body: undefined }, [["response.body", "body"]]],
    ["a valid 200", { operationId: "searchResources", status: 200, body: { results: [] } }, []],
    ["a 200 without required results", { operationId: "searchResources", status: 200, body: {} }, [["response.body.results", "required"]]],
  ])("%s", (_name, { operationId, status, body }, want) => {
    expect(check(operationId, status, body).map((v) => [v.field, v.reason])).toEqual(want);
  });

  it("knows which statuses an operation documents", () => {
    expect(check.documented("updateClusterMachine", 404)).toBe(true);
    expect(check.documented("searchResources", 404)).toBe(false);
    expect(check.documented("noSuchOperation", 200)).toBe(false);
  });

  it("never repeats the offending value", () => {
    const secret = "cak_NEVER-SHOWN";
    const text = JSON.stringify(check("createApiKey", 500, { code: 500, message: 5, key: secret }));
    expect(text).not.toContain(secret);
  });
});

describe("responseViolations", () => {
  it.each([
    [
      "a schema error",
      { errors: [{ path: "/response/machine/id", message: "must have required property 'id'", errorCode: "required.openapi.validation" }] },
      [{ field: "response.body.machine.id", description: "must have required property 'id'", reason: "required" }],
    ],
    [
      "an undocumented status",
      { errors: [{ path: "/v1/resources/search?query=a", message: "no schema defined for status code '418' in the openapi spec" }] },
      [{ field: "response.status", description: "status 418 is not documented for this operation", reason: "undocumented-status" }],
    ],
    ["a missing body", { errors: [{ path: "/response", message: "response body required." }] }, [{ field: "response.body", description: "response body required.", reason: "body" }]],
    ["anything else", { errors: [{ path: "/elsewhere", message: "odd" }] }, [{ field: "response", description: "odd", reason: "invalid" }]],
    ["no errors at all", new Error("x"), []],
  ])("maps %s", (_name, error, want) => {
    expect(responseViolations(error)).toEqual(want);
  });
});

describe("upstreamContractError", () => {
  it("is a 502 whose BadRequest detail lists the violations", () => {
    const violations = [{ field: "response.body.id", description: "must be string", reason: "type" }];
    expect(upstreamContractError(violations).toBody()).toEqual({
      code: 502,
      message: "upstream response does not conform to the interface",
      details: [
        { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations },
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID_UPSTREAM_RESPONSE", domain: "compute-api" },
      ],
    });
  });
});
