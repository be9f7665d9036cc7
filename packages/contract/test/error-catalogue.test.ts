import { readFileSync } from "node:fs";
import { errorBodyErrors } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import type { ApiError, ErrorBody } from "../src/api-error.js";
import {
  alreadyExists,
  bodyTooLarge,
  deadlineExceeded,
  dependencyUnavailable,
  errorCatalogue,
  internalError,
  invalidRequest,
  malformedUri,
  methodNotAllowed,
  notFound,
  notReady,
  permissionDenied,
  reasonOfStatus,
  shuttingDown,
  unauthenticated,
  unreadableBody,
  unsupportedBodyEncoding,
  unsupportedMediaType,
} from "../src/error-catalogue.js";

/** The status, message, ErrorInfo reasons and headers of an answer. */
const summary = (error: ApiError) => ({
  status: error.status,
  message: error.message,
  reasons: (error.toBody().details ?? []).flatMap((d) => ("reason" in d ? [d.reason] : [])),
  headers: error.headers,
});

describe("factories", () => {
  it.each<[string, { given: ApiError; want: ReturnType<typeof summary> }]>([
    [
      "notFound",
      { given: notFound(), want: { status: 404, message: "not found", reasons: ["NOT_FOUND"], headers: {} } },
    ],
    [
      "methodNotAllowed, with Allow",
      {
        given: methodNotAllowed("DELETE", "GET, POST"),
        want: {
          status: 405,
          message: "DELETE method not allowed",
          reasons: ["METHOD_NOT_ALLOWED"],
          headers: { Allow: "GET, POST" },
        },
      },
    ],
    [
      "malformedUri",
      {
        given: malformedUri(),
        want: {
          status: 400,
          message: "the request path is not valid percent-encoded UTF-8",
          reasons: ["MALFORMED_URI"],
          headers: {},
        },
      },
    ],
    [
      "unauthenticated, naming the problem",
      {
        given: unauthenticated("Authorization header required"),
        want: { status: 401, message: "Authorization header required", reasons: ["UNAUTHENTICATED"], headers: {} },
      },
    ],
    [
      "unsupportedMediaType",
      {
        given: unsupportedMediaType(),
        want: {
          status: 415,
          message: "request body must be application/json",
          reasons: ["UNSUPPORTED_MEDIA_TYPE"],
          headers: {},
        },
      },
    ],
    [
      "internalError, without a reason",
      { given: internalError(), want: { status: 500, message: "internal error", reasons: [], headers: {} } },
    ],
    [
      "bodyTooLarge, without a reason",
      {
        given: bodyTooLarge(),
        want: { status: 413, message: "request body is larger than the limit", reasons: [], headers: {} },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(summary(given)).toEqual(want);
  });

  it.each<[string, ApiError]>([
    ["invalidRequest", invalidRequest([{ field: "query", description: "is too long", reason: "maxLength" }])],
    ["permissionDenied", permissionDenied("permission denied on project 'p'", { projectId: "p" })],
    ["alreadyExists", alreadyExists("API key 'k' already exists", { apikeyId: "k" })],
    ["shuttingDown", shuttingDown()],
    ["dependencyUnavailable", dependencyUnavailable()],
    ["notReady", notReady()],
    ["deadlineExceeded", deadlineExceeded(30_000)],
    ["unsupportedBodyEncoding", unsupportedBodyEncoding()],
    ["unreadableBody", unreadableBody()],
    ["internalError with violations", internalError([{ field: "response.body.id", description: "x", reason: "type" }])],
  ])("%s answers a valid error body of the catalogue's status", (_name, error) => {
    const body: ErrorBody = error.toBody();
    expect(errorBodyErrors(body)).toEqual([]);
    for (const detail of body.details ?? []) {
      if ("reason" in detail)
        expect(errorCatalogue[detail.reason as keyof typeof errorCatalogue].status).toBe(error.status);
    }
  });
});

describe("reasonOfStatus", () => {
  it.each<[string, { given: number; want: string | undefined }]>([
    ["400", { given: 400, want: "INVALID_ARGUMENT" }],
    ["404", { given: 404, want: "NOT_FOUND" }],
    ["409", { given: 409, want: "ALREADY_EXISTS" }],
    ["429", { given: 429, want: "RATE_LIMIT_EXCEEDED" }],
    ["503", { given: 503, want: "UNAVAILABLE" }],
    ["a status without one", { given: 418, want: undefined }],
  ])("%s", (_name, { given, want }) => {
    expect(reasonOfStatus(given)).toBe(want);
  });
});

describe("the README's table of reasons", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  it.each(Object.entries(errorCatalogue))("lists %s with its status", (reason, { status }) => {
    const row = readme.split("\n").find((line) => line.startsWith(`| \`${reason}\` |`));
    expect(row, `no row for ${reason}`).toBeDefined();
    if (status > 0) expect(row).toContain(`| ${status} |`);
  });
});
