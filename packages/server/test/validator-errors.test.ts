import { errorBodyErrors } from "@compute-api/test-support";
import * as OpenApiValidator from "express-openapi-validator";
import { describe, expect, it } from "vitest";
import { fromValidatorError } from "../src/validator-errors.js";

const { BadRequest, MethodNotAllowed, NotFound, Unauthorized, UnsupportedMediaType } = OpenApiValidator.error;
const path = "/v1/api-keys";

describe("fromValidatorError", () => {
  it.each<[string, { given: unknown; want: { status: number; message: string; reason?: string; allow?: string } }]>([
    [
      "not found",
      {
        given: new NotFound({ path, message: "not found" }),
        want: { status: 404, message: "not found", reason: "NOT_FOUND" },
      },
    ],
    [
      "a method the path does not have, with Allow",
      {
        given: new MethodNotAllowed({ path, message: "DELETE method not allowed", headers: { Allow: "POST" } }),
        want: { status: 405, message: "DELETE method not allowed", reason: "METHOD_NOT_ALLOWED", allow: "POST" },
      },
    ],
    [
      "a security problem, named as the validator names it",
      {
        given: new Unauthorized({ path, message: "Authorization header required" }),
        want: { status: 401, message: "Authorization header required", reason: "UNAUTHENTICATED" },
      },
    ],
    [
      "another media type, in the contract's words",
      {
        given: new UnsupportedMediaType({ path, message: "unsupported media type text/plain" }),
        want: { status: 415, message: "request body must be application/json", reason: "UNSUPPORTED_MEDIA_TYPE" },
      },
    ],
    [
      "a body violation",
      {
        given: new BadRequest({
          path,
          message: "bad",
          errors: [{ path: "/body/apikeyId", message: "must match pattern", errorCode: "pattern.openapi.validation" }],
        }),
        want: { status: 400, message: "invalid request: must match pattern", reason: "INVALID_ARGUMENT" },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const error = fromValidatorError(given, "DELETE");
    const body = error.toBody();
    expect(error.status).toBe(want.status);
    expect(error.message).toBe(want.message);
    expect((body.details ?? []).flatMap((d) => ("reason" in d ? [d.reason] : []))).toEqual(
      want.reason ? [want.reason] : [],
    );
    expect(error.headers.Allow).toBe(want.allow);
    expect(errorBodyErrors(body)).toEqual([]);
  });

  it("a path segment that does not decode names no field and never echoes the path", () => {
    const body = fromValidatorError(
      new BadRequest({ path: "/v1/projects/proj%FF/cluster-machines/x", message: "malformed uri'" }),
      "GET",
    ).toBody();
    expect(body).toMatchObject({ code: 400, details: [{ reason: "MALFORMED_URI" }] });
    expect(JSON.stringify(body)).not.toContain("proj%FF");
    expect(errorBodyErrors(body)).toEqual([]);
  });
});
