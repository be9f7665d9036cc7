/**
 * @compute-api/contract: the compiled spec, for any server, proxy or tool that speaks it, without a web framework —
 * the bundled spec and its operations; `compileContract` (routing, a request and a response held to the spec); the
 * error body, its catalogue (every reason, with its status, and the factories a server throws) and the mapping of
 * anything thrown onto it; and the building blocks the repository's servers and runner check traffic with the same
 * way (the request checks, Ajv set up for the document, JSON pointers, the query-string parser, the formats). Each
 * name is chosen: at most 40 at run time, a test counts them.
 */

export { ApiError, badRequestDetail, type ErrorBody, type FieldViolation } from "./api-error.js";
export { bearerToken } from "./bearer.js";
export { boundedSchemas } from "./bounded-schemas.js";
export {
  hasRequestBody,
  missingRequestBody,
  undeclaredQueryParameter,
  unexpectedRequestBody,
} from "./check-request.js";
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
  malformedUri,
  methodNotAllowed,
  notFound,
  notReady,
  permissionDenied,
  type Reason,
  reasonOfStatus,
  shuttingDown,
  unauthenticated,
  unsupportedMediaType,
} from "./error-catalogue.js";
export { toApiError } from "./errors.js";
export { maxFieldViolations } from "./field-violations.js";
export { int32Format, int32Range } from "./formats.js";
export { deref, pointerToken, resolvePointer } from "./json-pointer.js";
export { mediaTypeOf } from "./media-types.js";
export { parseQueryString, pathOf, searchOf } from "./query.js";
export { createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
export {
  loadSpec,
  type OpenApiDocument,
  type OperationSuccess,
  type SpecOperation,
  specOperations,
} from "./spec.js";
