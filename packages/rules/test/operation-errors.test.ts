/** The failures of the three operations beyond validation: each answer's body, worded once. */
import type { ApiError, FieldViolation } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import {
  apiKeyExists,
  clusterMachineNotFound,
  createApiKeysDenied,
  priceBreaksTotals,
  priceTooLong,
  projectDenied,
  searchDenied,
  volumeNotFound,
} from "../src/operation-errors.js";

/** The status, message, ErrorInfo reason and metadata of an answer. */
const summary = (error: ApiError) => {
  const info = (error.toBody().details ?? []).find((d) => "reason" in d) as
    | { reason: string; metadata?: Record<string, string> }
    | undefined;
  return { status: error.status, message: error.message, reason: info?.reason, metadata: info?.metadata };
};

describe("the operations' answers", () => {
  it.each<[string, { given: ApiError; want: ReturnType<typeof summary> }]>([
    [
      "projectDenied",
      {
        given: projectDenied("proj-gamma"),
        want: {
          status: 403,
          message: "permission denied on project 'proj-gamma'",
          reason: "PERMISSION_DENIED",
          metadata: { projectId: "proj-gamma" },
        },
      },
    ],
    [
      "createApiKeysDenied",
      {
        given: createApiKeysDenied(),
        want: {
          status: 403,
          message: "permission denied: this user may not create API keys",
          reason: "PERMISSION_DENIED",
          metadata: undefined,
        },
      },
    ],
    [
      "searchDenied",
      {
        given: searchDenied(),
        want: {
          status: 403,
          message: "permission denied: this user may not search",
          reason: "PERMISSION_DENIED",
          metadata: undefined,
        },
      },
    ],
    [
      "clusterMachineNotFound",
      {
        given: clusterMachineNotFound("p", "cm-9"),
        want: {
          status: 404,
          message: "cluster machine 'cm-9' not found in project 'p'",
          reason: "NOT_FOUND",
          metadata: undefined,
        },
      },
    ],
    [
      "apiKeyExists",
      {
        given: apiKeyExists("ci-deploy-key"),
        want: {
          status: 409,
          message: "API key 'ci-deploy-key' already exists",
          reason: "ALREADY_EXISTS",
          metadata: { apikeyId: "ci-deploy-key" },
        },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(summary(given)).toEqual(want);
  });
});

describe("the PATCH's field violations", () => {
  it.each<[string, { given: FieldViolation; want: FieldViolation }]>([
    [
      "volumeNotFound",
      {
        given: volumeNotFound(2, "vol-x", "p"),
        want: { field: "volumeIds[2]", description: "no volume 'vol-x' in project 'p'", reason: "not-found" },
      },
    ],
    [
      "priceTooLong",
      {
        given: priceTooLong(64),
        want: {
          field: "priceHr.value",
          description: "is longer than 64 characters once normalized",
          reason: "maxLength",
        },
      },
    ],
    [
      "priceBreaksTotals",
      {
        given: priceBreaksTotals("the sum is too long"),
        want: {
          field: "priceHr.value",
          description: "makes the cluster's totals invalid: the sum is too long",
          reason: "range",
        },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(given).toEqual(want);
  });
});
