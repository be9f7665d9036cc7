import { errorBodyErrors } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import { toApiError } from "../src/errors.js";
import { fieldPath, maxFieldViolations, toFieldViolation, toFieldViolations } from "../src/field-violations.js";

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
