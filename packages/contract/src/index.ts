/**
 * Code shared by the compute-api stub server, gateway and conformance runner: the compiled contract, the error
 * catalogue and mapping, the spec and its schemas. The HTTP helpers (body parsing, CORS, logging) are
 * `@compute-api/contract/http`.
 */

export { ApiError, type ErrorBody, type FieldViolation } from "./api-error.js";
export { bearerToken } from "./bearer.js";
export { boundedSchemas } from "./bounded-schemas.js";
export {
  hasRequestBody,
  missingRequestBody,
  undeclaredQueryParameter,
  unexpectedRequestBody,
} from "./check-request.js";
export type { ResponseValidationMode } from "./check-response.js";
export { compareCodePoints } from "./compare-code-points.js";
export { type Contract, compileContract } from "./compile-contract.js";
export {
  alreadyExists,
  catalogueError,
  deadlineExceeded,
  dependencyUnavailable,
  errorCatalogue,
  internalError,
  invalidRequest,
  invalidRequestTarget,
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
  upstreamConnectionLost,
  upstreamContractError,
  upstreamNotReady,
  upstreamResponseTooLarge,
  upstreamTimeout,
  upstreamTlsFailed,
  upstreamUnavailable,
} from "./error-catalogue.js";
export { toApiError } from "./errors.js";
export { maxFieldViolations } from "./field-violations.js";
export { int32Format, int32Range } from "./formats.js";
export { deref, pointerToken, resolvePointer } from "./json-pointer.js";
export { mediaTypeOf } from "./media-types.js";
export { parseQueryString, pathOf, queryNames, searchOf } from "./query.js";
export { createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
export {
  type SearchQueryReason,
  searchQueryViolations,
  searchTermsRequired,
  searchTooManyTerms,
  searchTypeRepeated,
  searchTypeUnknown,
} from "./search-query-violations.js";
export { loadSpec, type OpenApiDocument, specOperations } from "./spec.js";
