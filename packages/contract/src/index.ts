/**
 * @compute-api/contract: the interface's contract for any server or tool, without a web framework — the error
 * body and its catalogue (every reason, with its status, and the factories a server throws), the mapping of
 * anything thrown onto it, the compiled contract (`compileContract`: a request and a response held to the spec),
 * and the bundled spec. The HTTP helpers (body parsing, CORS, logging, the drain) and the command-line helpers are
 * `@compute-api/runtime`'s; what only this repository's packages use is
 * `@compute-api/contract/internal`.
 */

export { ApiError, type ErrorBody, type FieldViolation } from "./api-error.js";
export type { ResponseValidationMode } from "./check-response.js";
export { type Contract, compileContract } from "./compile-contract.js";
export {
  alreadyExists,
  catalogueError,
  deadlineExceeded,
  dependencyUnavailable,
  errorCatalogue,
  internalError,
  invalidRequest,
  notFound,
  notReady,
  permissionDenied,
  type Reason,
  unauthenticated,
} from "./error-catalogue.js";
export { toApiError } from "./errors.js";
export { pathOf } from "./query.js";
export { loadSpec, type OpenApiDocument, specOperations } from "./spec.js";
