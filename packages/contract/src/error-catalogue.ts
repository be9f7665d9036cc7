/**
 * The catalogue of the interface's errors: every ErrorInfo reason a client can receive, with its status and
 * message, and a named factory for each answer that more than one package gives. An answer only one package gives
 * (the gateway's upstream failures, what Node's HTTP parser refuses) is built there, with `catalogueError` from its
 * reason here; no code invents a reason the catalogue lacks (`Reason` is checked by the compiler). The contract's
 * README lists the catalogue for users (keep the two alike: a test compares them).
 * @see openapi/components/schemas/ErrorBody.yaml
 */
import { ApiError, badRequestDetail, errorInfoDetail, type FieldViolation, retryInfoDetail } from "./api-error.js";
import { maxFieldViolations, toFieldViolations, type ValidatorErrorItem } from "./field-violations.js";

/** Every reason of the interface: its status and the message of its answer (a factory may say more). */
export const errorCatalogue = {
  INVALID_ARGUMENT: { status: 400, message: "invalid request" },
  MALFORMED_URI: { status: 400, message: "the request path is not valid percent-encoded UTF-8" },
  MALFORMED_REQUEST: { status: 400, message: "the request is not well-formed HTTP/1.1" },
  INVALID_REQUEST_TARGET: { status: 400, message: "the request target is not one the gateway forwards" },
  UNAUTHENTICATED: { status: 401, message: "missing or invalid API key" },
  PERMISSION_DENIED: { status: 403, message: "permission denied" },
  NOT_FOUND: { status: 404, message: "not found" },
  METHOD_NOT_ALLOWED: { status: 405, message: "method not allowed" },
  REQUEST_TIMEOUT: { status: 408, message: "the request did not arrive in time" },
  ALREADY_EXISTS: { status: 409, message: "already exists" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "request body is larger than the limit" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "request body must be application/json" },
  RATE_LIMIT_EXCEEDED: { status: 429, message: "too many requests" },
  HEADERS_TOO_LARGE: { status: 431, message: "request headers (the URL included) are larger than the limit" },
  INTERNAL: { status: 500, message: "internal error" },
  NOT_IMPLEMENTED: { status: 501, message: "not implemented" },
  BAD_GATEWAY: { status: 502, message: "bad gateway" },
  INVALID_UPSTREAM_RESPONSE: { status: 502, message: "upstream response does not conform to the interface" },
  UPSTREAM_TLS_FAILED: { status: 502, message: "the TLS handshake with the upstream failed" },
  UPSTREAM_CONNECTION_LOST: { status: 502, message: "upstream connection closed before the response was complete" },
  UPSTREAM_RESPONSE_TOO_LARGE: { status: 502, message: "upstream response body is larger than the limit" },
  UNAVAILABLE: { status: 503, message: "service unavailable" },
  SHUTTING_DOWN: { status: 503, message: "service unavailable: the server is shutting down" },
  UPSTREAM_UNAVAILABLE: { status: 503, message: "service unavailable: the upstream cannot be reached" },
  DEADLINE_EXCEEDED: { status: 504, message: "deadline exceeded" },
  UPSTREAM_TIMEOUT: { status: 504, message: "upstream did not respond in time" },
  /** Any other status the stub injects on request (`Prefer: code=…`, `--faults`). */
  INJECTED: { status: 0, message: "injected by the stub" },
} as const satisfies Record<string, { status: number; message: string }>;

/** An ErrorInfo reason of the interface. */
export type Reason = keyof typeof errorCatalogue;

/** The generic reason of each status: the one table from status to reason. */
const statusReasons: Readonly<Record<number, Reason>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "ALREADY_EXISTS",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMIT_EXCEEDED",
  500: "INTERNAL",
  502: "BAD_GATEWAY",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The generic reason of a status, such as `NOT_FOUND` for 404; undefined for a status without one. */
export const reasonOfStatus = (status: number): Reason | undefined => statusReasons[status];

/** What an answer adds to its reason. */
export interface ErrorOptions {
  /** ErrorInfo metadata. */
  metadata?: Record<string, string>;
  /** Details before the ErrorInfo detail (a BadRequest). */
  details?: ApiError["details"];
  /** When to retry: a RetryInfo detail after the ErrorInfo, and `Retry-After`. */
  retryAfterSeconds?: number;
}

/** The answer of a reason: its status (default the catalogue's), the message (default the catalogue's), its details. */
export function catalogueError(
  reason: Reason,
  message?: string,
  options: ErrorOptions & { status?: number } = {},
): ApiError {
  const { status, message: standard } = errorCatalogue[reason];
  const retry = options.retryAfterSeconds;
  return new ApiError(
    options.status ?? status,
    message ?? standard,
    [
      ...(options.details ?? []),
      errorInfoDetail(reason, options.metadata),
      ...(retry === undefined ? [] : [retryInfoDetail(retry)]),
    ],
    retry === undefined ? {} : { "Retry-After": String(retry) },
  );
}

/**
 * 400 with one field violation per problem (the first {@link maxFieldViolations}); `count` is how many problems
 * there were when `violations` holds only the first of them.
 */
export function invalidRequest(
  violations: FieldViolation[],
  reason: Reason = "INVALID_ARGUMENT",
  count = violations.length,
): ApiError {
  const message =
    count === 1
      ? `invalid request: ${violations[0]?.description}`
      : count > maxFieldViolations
        ? `request has ${count} invalid fields; the first ${maxFieldViolations} are listed`
        : `request has ${count} invalid fields`;
  return catalogueError(reason, message, { details: [badRequestDetail(violations.slice(0, maxFieldViolations))] });
}

/** 400 for validator error items, as `toFieldViolations` maps them. */
export function invalidItems(items: readonly ValidatorErrorItem[]): ApiError {
  const { violations, count } = toFieldViolations(items);
  return invalidRequest(violations, undefined, count);
}

/** 400: a path segment does not percent-decode to UTF-8 (the path is never repeated). */
export const malformedUri = (): ApiError => catalogueError("MALFORMED_URI");
/** 401: no usable credentials; `problem` names what is wrong with them. */
export const unauthenticated = (problem?: string): ApiError => catalogueError("UNAUTHENTICATED", problem);
/** 403: the caller may not do this. */
export const permissionDenied = (message?: string, metadata?: Record<string, string>): ApiError =>
  catalogueError("PERMISSION_DENIED", message, metadata ? { metadata } : {});
/** 404: no such route or resource. */
export const notFound = (message?: string): ApiError => catalogueError("NOT_FOUND", message);
/** 405 with the `Allow` header (upper-case methods, `, `-separated). */
export function methodNotAllowed(method: string, allow: string): ApiError {
  const error = catalogueError("METHOD_NOT_ALLOWED", `${method} method not allowed`);
  error.headers.Allow = allow;
  return error;
}
/** 409: the resource to create exists. */
export const alreadyExists = (message?: string, metadata?: Record<string, string>): ApiError =>
  catalogueError("ALREADY_EXISTS", message, metadata ? { metadata } : {});
/** 415: the body is not of a media type the operation takes. */
export const unsupportedMediaType = (): ApiError => catalogueError("UNSUPPORTED_MEDIA_TYPE");
/** 503 from `/readyz` while a server drains (`gateway` says which one). */
export const shuttingDown = (server = "server"): ApiError =>
  catalogueError("SHUTTING_DOWN", `service unavailable: the ${server} is shutting down`);
/**
 * 503: something the server depends on (its database, an identity service) failed or did not answer, so the
 * request could not be served; try again in a second. The cause is the server's log's, never the body's: this
 * is what a backend outage gets, never a 401 or a 4xx a client would act on.
 */
export const dependencyUnavailable = (retryAfterSeconds = 1): ApiError =>
  catalogueError("UNAVAILABLE", "service unavailable: try again later", { retryAfterSeconds });
/** 503 from `/readyz`: the server cannot serve yet (its readiness check failed); try again in a second. */
export const notReady = (): ApiError =>
  catalogueError("UNAVAILABLE", "service unavailable: not ready", { retryAfterSeconds: 1 });
/** 504: the server did not complete the request within its time limit; its work was cancelled. */
export const deadlineExceeded = (timeoutMs: number): ApiError =>
  catalogueError("DEADLINE_EXCEEDED", `the request did not complete within ${timeoutMs} ms`);

// Answers without an ErrorInfo reason: their bodies have been so since the first release.

/** 500: an unexpected failure; its cause is logged, never sent. A response that broke the spec names the violations. */
export const internalError = (violations: FieldViolation[] = []): ApiError =>
  new ApiError(500, errorCatalogue.INTERNAL.message, violations.length > 0 ? [badRequestDetail(violations)] : []);
/** 413: the request body is over the limit. */
export const bodyTooLarge = (): ApiError => new ApiError(413, errorCatalogue.PAYLOAD_TOO_LARGE.message);
/** 415: a body in a content coding or charset the parser does not read. */
export const unsupportedBodyEncoding = (): ApiError =>
  new ApiError(415, "unsupported body encoding or charset; send UTF-8 application/json");
/** 400: a body the parser cannot read for another reason (its message may quote the body, so it is not used). */
export const unreadableBody = (): ApiError => new ApiError(400, "request body cannot be read");
