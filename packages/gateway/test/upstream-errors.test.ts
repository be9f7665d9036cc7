/** The gateway's answers to failed backend requests, and the TLS problem named in the log line. */
import type { ApiError } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { faultError, responseTooLarge, tlsProblem } from "../src/upstream-errors.js";

const reasonOf = (error: ApiError) =>
  (error.toBody().details as { reason?: string }[]).find((d) => d.reason !== undefined)?.reason;

describe("faultError", () => {
  it.each<[string, { error: unknown; timedOut?: boolean; status: number; reason: string; headers?: object }]>([
    [
      "the gateway's deadline",
      { error: new Error("deadline"), timedOut: true, status: 504, reason: "UPSTREAM_TIMEOUT" },
    ],
    [
      "undici's headers timeout",
      { error: { code: "UND_ERR_HEADERS_TIMEOUT" }, status: 504, reason: "UPSTREAM_TIMEOUT" },
    ],
    ["undici's body timeout", { error: { code: "UND_ERR_BODY_TIMEOUT" }, status: 504, reason: "UPSTREAM_TIMEOUT" }],
    [
      "a TLS handshake that failed",
      { error: { code: "ERR_SSL_WRONG_VERSION_NUMBER" }, status: 502, reason: "UPSTREAM_TLS_FAILED" },
    ],
    [
      "a refused connection",
      {
        error: { code: "ECONNREFUSED" },
        status: 503,
        reason: "UPSTREAM_UNAVAILABLE",
        headers: { "Retry-After": "1" },
      },
    ],
    ["an unknown host", { error: { cause: { code: "ENOTFOUND" } }, status: 503, reason: "UPSTREAM_UNAVAILABLE" }],
    [
      "every address refused (AggregateError)",
      { error: { errors: [{ code: "ECONNREFUSED" }] }, status: 503, reason: "UPSTREAM_UNAVAILABLE" },
    ],
    ["a connect timeout", { error: { code: "UND_ERR_CONNECT_TIMEOUT" }, status: 503, reason: "UPSTREAM_UNAVAILABLE" }],
    [
      "a connection closed midway",
      { error: { code: "UND_ERR_SOCKET" }, status: 502, reason: "UPSTREAM_CONNECTION_LOST" },
    ],
    ["anything else", { error: new Error("?"), status: 502, reason: "UPSTREAM_CONNECTION_LOST" }],
  ])("%s", (_name, { error, timedOut = false, status, reason, headers }) => {
    const answer = faultError(error, 1500, timedOut);
    expect(answer.status).toBe(status);
    expect(reasonOf(answer)).toBe(reason);
    if (headers) expect(answer.headers).toMatchObject(headers);
    // The cause is kept for the log line, but never serialized into the answer.
    expect((answer as { cause?: unknown }).cause).toBe(error);
    expect(Object.keys(answer)).not.toContain("cause");
  });

  it("names the deadline in the message of a 504", () => {
    expect(faultError(new Error("deadline"), 1500, true).message).toMatch(/within 1500 ms/);
  });
});

describe("tlsProblem", () => {
  it.each<[string, { error: unknown; want: RegExp | undefined }]>([
    [
      "plain HTTP behind an https:// URL",
      { error: { code: "ERR_SSL_WRONG_VERSION_NUMBER" }, want: /does not speak TLS: is it plain HTTP/ },
    ],
    [
      "a refused certificate",
      {
        error: Object.assign(new Error("self-signed certificate\nmore"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }),
        want: /^TLS error with the upstream: DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate$/,
      },
    ],
    [
      "a host name the certificate does not cover",
      { error: { cause: { code: "ERR_TLS_CERT_ALTNAME_INVALID" } }, want: /ERR_TLS_CERT_ALTNAME_INVALID/ },
    ],
    [
      "a close during the handshake",
      {
        error: new Error("Client network socket disconnected before secure TLS connection was established"),
        want: /closed the connection during the TLS handshake/,
      },
    ],
    ["a refused connection", { error: { code: "ECONNREFUSED" }, want: undefined }],
    ["nothing", { error: undefined, want: undefined }],
  ])("%s", (_name, { error, want }) => {
    const problem = tlsProblem(error);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("responseTooLarge", () => {
  it("is a 502 UPSTREAM_RESPONSE_TOO_LARGE naming the limit", () => {
    const error = responseTooLarge(1024);
    expect(error.status).toBe(502);
    expect(reasonOf(error)).toBe("UPSTREAM_RESPONSE_TOO_LARGE");
    expect(error.message).toMatch(/limit of 1024 bytes/);
  });
});
