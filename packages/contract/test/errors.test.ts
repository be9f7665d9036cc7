import { errorBodyErrors } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api-error.js";
import { toApiError } from "../src/errors.js";

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
