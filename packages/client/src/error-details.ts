import type { BadRequest, ErrorDetail, ErrorInfo, RetryInfo } from "./types.js";

// The generated ErrorDetail union also holds UnknownErrorDetail, whose `@type` is any string, so comparing
// `@type` alone does not narrow it; and bodies come off the wire, so each guard checks the shape it promises.

/** True when `detail` is a google.rpc.BadRequest with its list of field violations. @see #/components/schemas/BadRequest */
export function isBadRequestDetail(detail: ErrorDetail): detail is BadRequest {
  return (
    detail["@type"] === "type.googleapis.com/google.rpc.BadRequest" &&
    "fieldViolations" in detail &&
    Array.isArray(detail.fieldViolations)
  );
}

/** True when `detail` is a google.rpc.ErrorInfo with its reason. @see #/components/schemas/ErrorInfo */
export function isErrorInfoDetail(detail: ErrorDetail): detail is ErrorInfo {
  return (
    detail["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" &&
    "reason" in detail &&
    typeof detail.reason === "string"
  );
}

/** True when `detail` is a google.rpc.RetryInfo with its retry delay. @see #/components/schemas/RetryInfo */
export function isRetryInfoDetail(detail: ErrorDetail): detail is RetryInfo {
  return (
    detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo" &&
    "retryDelay" in detail &&
    typeof detail.retryDelay === "string"
  );
}

/** The `details` of an error body as received, keeping only the entries that carry an `@type`. */
export function errorDetailsOf(body: unknown): ErrorDetail[] {
  if (typeof body !== "object" || body === null || !("details" in body) || !Array.isArray(body.details)) return [];
  return body.details.filter(
    (detail: unknown): detail is ErrorDetail =>
      typeof detail === "object" && detail !== null && "@type" in detail && typeof detail["@type"] === "string",
  );
}
