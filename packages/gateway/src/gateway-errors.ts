/**
 * The gateway's own answers, each built from its reason in the contract's catalogue (`errorCatalogue`, where every
 * reason a client can receive is listed with its status and message): a request target it will not forward, a
 * backend that cannot be reached, does not answer, fails TLS, breaks the connection, answers too much, or answers
 * outside the interface.
 * @see openapi/components/schemas/ErrorBody.yaml
 */
import { type ApiError, badRequestDetail, catalogueError, type FieldViolation } from "@compute-api/contract";

/** 400: a request target the gateway will not forward, and why (`is not a path`). */
export const invalidRequestTarget = (why: string): ApiError =>
  catalogueError("INVALID_REQUEST_TARGET", `the request target ${why}`);
/** 503: the upstream cannot be reached; try again in a second. */
export const upstreamUnavailable = (): ApiError =>
  catalogueError("UPSTREAM_UNAVAILABLE", undefined, { retryAfterSeconds: 1 });
/** 503 from the gateway's readiness endpoint: the upstream does not answer its ping. */
export const upstreamNotReady = (): ApiError =>
  catalogueError("UPSTREAM_UNAVAILABLE", "service unavailable: the upstream does not answer");
/** 504: the upstream did not answer within the timeout. */
export const upstreamTimeout = (timeoutMs: number): ApiError =>
  catalogueError("UPSTREAM_TIMEOUT", `upstream did not respond within ${timeoutMs} ms`);
/** 502: the TLS handshake with the upstream failed. */
export const upstreamTlsFailed = (): ApiError => catalogueError("UPSTREAM_TLS_FAILED");
/** 502: the upstream closed the connection before its response was complete. */
export const upstreamConnectionLost = (): ApiError => catalogueError("UPSTREAM_CONNECTION_LOST");
/** 502: the upstream's response body (decoded) is larger than the limit. */
export const upstreamResponseTooLarge = (maxResponseBytes: number): ApiError =>
  catalogueError(
    "UPSTREAM_RESPONSE_TOO_LARGE",
    `upstream response body is larger than the limit of ${maxResponseBytes} bytes`,
  );
/** 502: the backend answered outside the interface; the BadRequest detail names each violation, never a value. */
export const upstreamContractError = (violations: FieldViolation[]): ApiError =>
  catalogueError("INVALID_UPSTREAM_RESPONSE", undefined, { details: [badRequestDetail(violations)] });
