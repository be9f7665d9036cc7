/**
 * The mapping of every failure onto the interface's error body: an ApiError as it is, body-parser's errors, any
 * error with an HTTP `status` (http-errors' convention) by the catalogue's reason of its status, and anything
 * else as a bare 500 whose message is never sent. express-openapi-validator's own errors are translated in the
 * stub's adapter, which then hands the rest here.
 * @see openapi/components/schemas/ErrorBody.yaml
 */
import { ApiError } from "./api-error.js";
import {
  bodyTooLarge,
  catalogueError,
  errorCatalogue,
  internalError,
  invalidItems,
  invalidRequest,
  reasonOfStatus,
  unreadableBody,
  unsupportedBodyEncoding,
} from "./error-catalogue.js";
import { toFieldViolations, type ValidatorErrorItem } from "./field-violations.js";

/** Shape of the errors body-parser and the validators pass to `next(err)`. */
export interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: ValidatorErrorItem[];
  headers?: Record<string, string>;
}

/** Whether a value is an error with an HTTP status. */
export const isHttpLike = (e: unknown): e is HttpLikeError =>
  typeof e === "object" && e !== null && ("status" in e || "statusCode" in e);

/** Maps anything thrown or passed to `next(err)` onto an ApiError. Unknown errors become a bare 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (!isHttpLike(error)) return internalError();
  const status = error.status ?? error.statusCode ?? 500;
  // body-parser: malformed JSON and bodies over the limit. Its messages may quote the body, so they are not used.
  if (error.type === "entity.parse.failed") {
    return invalidRequest([{ field: "", description: "body is not valid JSON", reason: "malformed-json" }]);
  }
  if (error.type === "entity.too.large") return bodyTooLarge();
  if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") return unsupportedBodyEncoding();
  if (typeof error.type === "string" && status < 500) return unreadableBody();
  if (status === 400) return invalidItems(error.errors ?? [{ message: error.message ?? "invalid request" }]);
  if (status >= 500) return internalError(toFieldViolations(error.errors ?? []).violations);
  const reason = reasonOfStatus(status);
  // A validator's message names the rule ("Authorization header required") and never carries a header value.
  const message = error.message || (reason && errorCatalogue[reason].message) || "error";
  const answer = reason ? catalogueError(reason, message, { status }) : new ApiError(status, message);
  if (error.headers?.Allow) answer.headers.Allow = error.headers.Allow;
  return answer;
}
