import { describe, expect, it } from "vitest";
import {
  ApiError,
  fieldPath,
  maxFieldViolations,
  toApiError,
  toFieldViolation,
  toFieldViolations,
} from "../src/errors.js";
import { errorBodyErrors } from "./support/error-body.js";

describe("fieldPath", () => {
  it.each([
    ["/body/volumeIds/2", "volumeIds[2]"],
    ["/body/priceHr/value", "priceHr.value"],
    ["/body", ""],
    ["/query/query", "query"],
    ["/params/projectId", "projectId"],
    ["/headers/authorization", "header.authorization"],
    ["/response/results/0/cluster/id", "response.body.results[0].cluster.id"],
    ["/response", "response.body"],
    [".body.apikeyId", "apikeyId"],
  ])("%s → %j", (given, want) => {
    expect(fieldPath(given)).toBe(want);
  });
});

describe("toFieldViolation", () => {
  it.each([
    [
      "duplicate items name the later index",
      {
        path: "/body/volumeIds",
        message: "must NOT have duplicate items (items ## 3 and 1 are identical)",
        errorCode: "uniqueItems.openapi.validation",
      },
      { field: "volumeIds[3]", reason: "uniqueItems" },
    ],
    [
      "an unknown body field is named",
      {
        path: "/body",
        message: "must NOT have additional properties: 'color'",
        errorCode: "additionalProperties.openapi.validation",
      },
      { field: "color", reason: "additionalProperties" },
    ],
    [
      "an excluded enum value",
      { path: "/body/state", message: "must NOT be valid", errorCode: "not.openapi.validation" },
      { field: "state", reason: "not", description: "is not an allowed value here" },
    ],
    [
      "a pattern",
      { path: "/body/apikeyId", message: 'must match pattern "^[a-z0-9-]+$"', errorCode: "pattern.openapi.validation" },
      { field: "apikeyId", reason: "pattern" },
    ],
    [
      "an unknown property named with digits is named as a property, not an array index",
      {
        path: "/body/priceHr/0",
        message: "must NOT have additional properties",
        errorCode: "additionalProperties.openapi.validation",
      },
      { field: "priceHr.0", reason: "additionalProperties" },
    ],
    [
      "an unknown top-level property named with digits is named as it is",
      {
        path: "/body/12",
        message: "must NOT have additional properties",
        errorCode: "additionalProperties.openapi.validation",
      },
      { field: "12", reason: "additionalProperties" },
    ],
    [
      "an index before a missing property stays an index",
      {
        path: "/body/volumeIds/2/id",
        message: "must have required property 'id'",
        errorCode: "required.openapi.validation",
      },
      { field: "volumeIds[2].id", reason: "required" },
    ],
  ])("%s", (_name, given, want) => {
    expect(toFieldViolation(given)).toMatchObject(want);
  });
});

describe("toFieldViolations", () => {
  it("maps at most maxFieldViolations items, counts them all, and drops Ajv's `if` errors (the guards of boundedSchemas)", () => {
    const bad = { path: "/body/volumeIds/0", message: "must match pattern", errorCode: "pattern.openapi.validation" };
    const guard = { path: "/body/volumeIds", message: 'must match "then" schema', errorCode: "if.openapi.validation" };
    const { violations, count } = toFieldViolations([guard, ...Array.from({ length: 130_000 }, () => bad)]);
    expect(count).toBe(130_000);
    expect(violations).toHaveLength(maxFieldViolations);
    expect(violations[0]).toEqual({ field: "volumeIds[0]", description: "must match pattern", reason: "pattern" });
  });

  it("maps 130,000 validator items of express-openapi-validator to a 400 without overflowing the stack", () => {
    const errors = Array.from({ length: 130_000 }, (_, i) => ({
      path: `/body/volumeIds/${i}`,
      message: "must match pattern",
      errorCode: "pattern.openapi.validation",
    }));
    const body = toApiError({ status: 400, message: "bad", errors }).toBody();
    expect(body.message).toBe(`request has 130000 invalid fields; the first ${maxFieldViolations} are listed`);
    expect(errorBodyErrors(body)).toEqual([]);
  });
});

describe("toApiError", () => {
  it.each([
    [
      "malformed JSON (body-parser)",
      Object.assign(new SyntaxError('Unexpected token } in JSON at position 9: {"key":"cak_secret"}'), {
        status: 400,
        type: "entity.parse.failed",
      }),
      400,
    ],
    ["body over the limit", { status: 413, type: "entity.too.large", message: "request entity too large" }, 413],
    ["unsupported charset", { status: 415, type: "charset.unsupported", message: 'unsupported charset "LATIN1"' }, 415],
    [
      "validator 400",
      {
        status: 400,
        message: "bad",
        errors: [
          {
            path: "/query/query",
            message: "must NOT have fewer than 1 characters",
            errorCode: "minLength.openapi.validation",
          },
        ],
      },
      400,
    ],
    ["validator 401", { status: 401, message: "Authorization header required" }, 401],
    ["validator 404", { status: 404, message: "not found" }, 404],
    ["validator 405", { status: 405, message: "DELETE method not allowed", headers: { Allow: "GET" } }, 405],
    ["validator 415", { status: 415, message: "unsupported media type text/plain" }, 415],
    [
      "response validation (500)",
      {
        status: 500,
        message: "/response/id must be string",
        errors: [{ path: "/response/id", message: "must be string", errorCode: "type.openapi.validation" }],
      },
      500,
    ],
    ["an unexpected exception", new TypeError("cannot read properties of undefined"), 500],
    ["a thrown string", "boom", 500],
  ])("%s → %i with a valid error body", (_name, given, status) => {
    const error = toApiError(given);
    expect(error.status).toBe(status);
    const body = error.toBody();
    expect(body.code).toBe(status);
    expect(errorBodyErrors(body)).toEqual([]);
  });

  it("a path segment that does not decode names no field and never echoes the path", () => {
    const body = toApiError({
      status: 400,
      path: "/v1/projects/proj%FF/cluster-machines/x",
      message: "malformed uri'",
    }).toBody();
    expect(body).toMatchObject({ code: 400, details: [{ reason: "MALFORMED_URI" }] });
    expect(JSON.stringify(body)).not.toContain("proj%FF");
    expect(errorBodyErrors(body)).toEqual([]);
  });

  it("never echoes the request body of a malformed JSON error", () => {
    const e = Object.assign(new SyntaxError('Unexpected end of JSON input: {"key":"cak_secret"'), {
      status: 400,
      type: "entity.parse.failed",
    });
    expect(JSON.stringify(toApiError(e).toBody())).not.toContain("cak_secret");
  });

  it("never sends an unexpected exception's message or stack", () => {
    const body = JSON.stringify(toApiError(new Error("db password is hunter2")).toBody());
    expect(body).not.toContain("hunter2");
    expect(body).not.toContain("at ");
  });

  it("lists at most 100 field violations, and says how many there were", () => {
    const errors = Array.from({ length: 5000 }, (_, i) => ({
      path: `/body/volumeIds/${i}`,
      message: "must match pattern",
      errorCode: "pattern.openapi.validation",
    }));
    const body = toApiError({ status: 400, message: "bad", errors }).toBody();
    const detail = body.details?.[0] as { fieldViolations: unknown[] };
    expect(detail.fieldViolations).toHaveLength(100);
    expect(body.message).toBe("request has 5000 invalid fields; the first 100 are listed");
    expect(errorBodyErrors(body)).toEqual([]);
  });

  it("keeps the Allow header of a 405", () => {
    expect(toApiError({ status: 405, message: "x", headers: { Allow: "GET" } }).headers).toEqual({ Allow: "GET" });
  });

  it("passes an ApiError through", () => {
    const e = new ApiError(409, "exists");
    expect(toApiError(e)).toBe(e);
  });
});
