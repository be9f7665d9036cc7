/**
 * The one error body of the interface (ErrorBody, google.rpc.Status): the error every failure becomes, and its
 * google.rpc details. Which errors there are is the catalogue's (`error-catalogue.ts`).
 * @see openapi/components/schemas/ErrorBody.yaml
 */

import type { components } from "@compute-api/spec/types";

/** The error body of every failed request. */
export type ErrorBody = components["schemas"]["ErrorBody"];
/** One detail of an error body. */
export type ErrorDetail = components["schemas"]["ErrorDetail"];
/** One problem with one part of a request. */
export type FieldViolation = components["schemas"]["FieldViolation"];

const domain = "compute-api";

/** A failure with its HTTP status, message and details; handlers throw it, the error handler sends it. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The body to send: `code` mirrors the status. */
  toBody(): ErrorBody {
    return this.details.length > 0
      ? { code: this.status, message: this.message, details: this.details }
      : { code: this.status, message: this.message };
  }
}

/** A google.rpc.BadRequest detail. */
export function badRequestDetail(fieldViolations: FieldViolation[]): ErrorDetail {
  return { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations };
}

/** A google.rpc.ErrorInfo detail. */
export function errorInfoDetail(reason: string, metadata?: Record<string, string>): ErrorDetail {
  return metadata
    ? { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain, metadata }
    : { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain };
}

/** A google.rpc.RetryInfo detail. */
export function retryInfoDetail(seconds: number): ErrorDetail {
  return { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` };
}
