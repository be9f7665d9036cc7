import { errorDetailsOf, isBadRequestDetail, isErrorInfoDetail } from "./error-details.js";
import type { ErrorDetail, ErrorInfo, FieldViolation } from "./types.js";

/**
 * A failed call, built from the HTTP status and the ErrorBody the service answered with. It holds only what the
 * body says (never the request, whose headers carry the API key). @see #/components/schemas/ErrorBody
 */
export class ComputeApiError extends Error {
  override readonly name = "ComputeApiError";
  /** The HTTP status of the response. */
  readonly status: number;
  /** The body's `code` (it mirrors the HTTP status), or the status when the body is not an ErrorBody. */
  readonly code: number;
  /** The body's machine-readable details, in the order received. */
  readonly details: readonly ErrorDetail[];

  /** `body` is the parsed error body as openapi-fetch returns it: an ErrorBody, or text from something in between. */
  constructor(status: number, body: unknown) {
    const { code, message } = summaryOf(status, body);
    super(message);
    this.status = status;
    this.code = code;
    this.details = errorDetailsOf(body);
  }

  /** Every field violation of the google.rpc.BadRequest details, empty when there are none. */
  get fieldViolations(): readonly FieldViolation[] {
    return this.details.filter(isBadRequestDetail).flatMap((detail) => detail.fieldViolations);
  }

  /** The google.rpc.ErrorInfo detail (for example reason `ALREADY_EXISTS` on 409), if the body has one. */
  get errorInfo(): ErrorInfo | undefined {
    return this.details.find(isErrorInfoDetail);
  }
}

function summaryOf(status: number, body: unknown): { code: number; message: string } {
  if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
    const code = "code" in body && typeof body.code === "number" ? body.code : status;
    return { code, message: body.message };
  }
  // A proxy's HTML or text page is not repeated: it may be long, and it is not the service's message.
  return { code: status, message: `HTTP ${status} without an error body from the compute service` };
}
