/** The gateway's own answers: each a valid error body of its reason's status in the contract's catalogue. */
import { type ApiError, type ErrorBody, errorCatalogue } from "@compute-api/contract";
import { errorBodyErrors } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import {
  invalidRequestTarget,
  upstreamConnectionLost,
  upstreamContractError,
  upstreamNotReady,
  upstreamResponseTooLarge,
  upstreamTimeout,
  upstreamTlsFailed,
  upstreamUnavailable,
} from "../src/gateway-errors.js";

/** The status, message, ErrorInfo reasons and headers of an answer. */
const summary = (error: ApiError) => ({
  status: error.status,
  message: error.message,
  reasons: (error.toBody().details ?? []).flatMap((d) => ("reason" in d ? [d.reason] : [])),
  headers: error.headers,
});

describe("the gateway's answers", () => {
  it.each<[string, { given: ApiError; want: ReturnType<typeof summary> }]>([
    [
      "upstreamUnavailable, with when to retry",
      {
        given: upstreamUnavailable(),
        want: {
          status: 503,
          message: "service unavailable: the upstream cannot be reached",
          reasons: ["UPSTREAM_UNAVAILABLE"],
          headers: { "Retry-After": "1" },
        },
      },
    ],
    [
      "upstreamTimeout",
      {
        given: upstreamTimeout(250),
        want: {
          status: 504,
          message: "upstream did not respond within 250 ms",
          reasons: ["UPSTREAM_TIMEOUT"],
          headers: {},
        },
      },
    ],
    [
      "invalidRequestTarget, saying why",
      {
        given: invalidRequestTarget("is not a path"),
        want: {
          status: 400,
          message: "the request target is not a path",
          reasons: ["INVALID_REQUEST_TARGET"],
          headers: {},
        },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(summary(given)).toEqual(want);
  });

  it.each<[string, ApiError]>([
    ["invalidRequestTarget", invalidRequestTarget("is not a path")],
    ["upstreamUnavailable", upstreamUnavailable()],
    ["upstreamNotReady", upstreamNotReady()],
    ["upstreamTimeout", upstreamTimeout(250)],
    ["upstreamTlsFailed", upstreamTlsFailed()],
    ["upstreamConnectionLost", upstreamConnectionLost()],
    ["upstreamResponseTooLarge", upstreamResponseTooLarge(1024)],
    ["upstreamContractError", upstreamContractError([{ field: "response.body.id", description: "x", reason: "type" }])],
  ])("%s answers a valid error body of the catalogue's status", (_name, error) => {
    const body: ErrorBody = error.toBody();
    expect(errorBodyErrors(body)).toEqual([]);
    const reasons = (body.details ?? []).flatMap((d) =>
      "reason" in d ? [d.reason as keyof typeof errorCatalogue] : [],
    );
    expect(reasons).toHaveLength(1);
    for (const reason of reasons) expect(errorCatalogue[reason].status).toBe(error.status);
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
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "INVALID_UPSTREAM_RESPONSE",
          domain: "compute-api",
        },
      ],
    });
  });
});
