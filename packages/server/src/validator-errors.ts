/**
 * express-openapi-validator's errors translated into the contract's catalogue, here only: the stub answers what
 * the gateway's compiled contract answers, and the contract knows nothing of this library. What is not one of its
 * errors (body-parser's, the handlers' ApiErrors, anything thrown) goes to the contract's `toApiError`.
 */
import {
  type ApiError,
  malformedUri,
  methodNotAllowed,
  notFound,
  toApiError,
  unauthenticated,
  unsupportedMediaType,
} from "@compute-api/contract";
import * as OpenApiValidator from "express-openapi-validator";

const { MethodNotAllowed, NotFound, BadRequest, Unauthorized, UnsupportedMediaType } = OpenApiValidator.error;

/**
 * The answer to an error passed to `next(err)` in a request of `method`: the validator's own by the catalogue, the
 * rest by `toApiError`.
 */
export function fromValidatorError(error: unknown, method: string): ApiError {
  if (error instanceof NotFound) return notFound(error.message || undefined);
  if (error instanceof MethodNotAllowed) return methodNotAllowed(method, error.headers?.Allow ?? "");
  // A path segment that does not decode (`%FF`): its error carries the raw path as if it were a field.
  if (error instanceof BadRequest && /^malformed uri/.test(error.message)) return malformedUri();
  // Its messages name the rule ("Authorization header required") and never carry a header value.
  if (error instanceof Unauthorized) return unauthenticated(error.message || undefined);
  if (error instanceof UnsupportedMediaType) return unsupportedMediaType();
  return toApiError(error);
}
