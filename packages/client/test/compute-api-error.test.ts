import { describe, expect, test } from "vitest";
import { ComputeApiError } from "../src/index.js";

const violation = { field: "volumeIds[2]", description: "duplicate volume", reason: "unique" };
const badRequest = { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [violation] };
const errorInfo = {
  "@type": "type.googleapis.com/google.rpc.ErrorInfo",
  reason: "ALREADY_EXISTS",
  domain: "compute-api",
};
const retryInfo = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" };
const unknown = { "@type": "type.googleapis.com/example.Other", anything: true };

interface Want {
  code: number;
  message: string;
  details: unknown[];
  fieldViolations: unknown[];
  errorInfo: unknown;
}

const cases: [string, { status: number; body: unknown; want: Want }][] = [
  [
    "a 400 with field violations",
    {
      status: 400,
      body: { code: 400, message: "invalid request", details: [badRequest, retryInfo] },
      want: {
        code: 400,
        message: "invalid request",
        details: [badRequest, retryInfo],
        fieldViolations: [violation],
        errorInfo: undefined,
      },
    },
  ],
  [
    "a 409 with ErrorInfo",
    {
      status: 409,
      body: { code: 409, message: "exists", details: [errorInfo] },
      want: { code: 409, message: "exists", details: [errorInfo], fieldViolations: [], errorInfo },
    },
  ],
  [
    "violations spread over two BadRequest details",
    {
      status: 400,
      body: {
        code: 400,
        message: "invalid",
        details: [badRequest, { ...badRequest, fieldViolations: [{ field: "", description: "empty" }] }],
      },
      want: {
        code: 400,
        message: "invalid",
        details: [badRequest, { ...badRequest, fieldViolations: [{ field: "", description: "empty" }] }],
        fieldViolations: [violation, { field: "", description: "empty" }],
        errorInfo: undefined,
      },
    },
  ],
  [
    "unknown detail types kept, malformed ones dropped",
    {
      status: 400,
      body: {
        code: 400,
        message: "invalid",
        details: [unknown, "text", null, { noType: 1 }, { "@type": "type.googleapis.com/google.rpc.BadRequest" }],
      },
      want: {
        code: 400,
        message: "invalid",
        details: [unknown, { "@type": "type.googleapis.com/google.rpc.BadRequest" }],
        fieldViolations: [],
        errorInfo: undefined,
      },
    },
  ],
  [
    "a body without details",
    {
      status: 404,
      body: { code: 404, message: "not found" },
      want: { code: 404, message: "not found", details: [], fieldViolations: [], errorInfo: undefined },
    },
  ],
  [
    "a text page from a proxy",
    {
      status: 502,
      body: "<html>Bad Gateway</html>",
      want: {
        code: 502,
        message: "HTTP 502 without an error body from the compute service",
        details: [],
        fieldViolations: [],
        errorInfo: undefined,
      },
    },
  ],
  [
    "an empty body",
    {
      status: 503,
      body: undefined,
      want: {
        code: 503,
        message: "HTTP 503 without an error body from the compute service",
        details: [],
        fieldViolations: [],
        errorInfo: undefined,
      },
    },
  ],
];

describe("ComputeApiError", () => {
  test.each(cases)("%s", (_, { status, body, want }) => {
    const error = new ComputeApiError(status, body);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ComputeApiError");
    expect(error.status).toBe(status);
    expect({
      code: error.code,
      message: error.message,
      details: error.details,
      fieldViolations: error.fieldViolations,
      errorInfo: error.errorInfo,
    }).toEqual(want);
  });
});
