/** Code shared by the compute-api stub server and gateway: the compiled contract, error mapping, logging. */

export {
  ApiError,
  badRequestDetail,
  type ErrorBody,
  type ErrorDetail,
  errorInfoDetail,
  type FieldViolation,
  retryInfoDetail,
} from "./api-error.js";
export { bearerToken } from "./bearer.js";
export { boundedSchemas } from "./bounded-schemas.js";
export {
  hasRequestBody,
  missingRequestBody,
  type RequestParts,
  undeclaredQueryParameter,
  unexpectedRequestBody,
} from "./check-request.js";
export { type ResponseParts, type ResponseValidationMode, undocumentedStatus } from "./check-response.js";
export { answerClientErrors } from "./client-errors.js";
export { compareCodePoints } from "./compare-code-points.js";
export { type Contract, type ContractOptions, compileContract } from "./compile-contract.js";
export type { ContractOperation } from "./compile-operation.js";
export { type CorsHandler, corsHandler, exposedHeaders, isPreflight, parseOrigins } from "./cors.js";
export * from "./error-catalogue.js";
export { toApiError } from "./errors.js";
export {
  ajvErrorItems,
  fieldPath,
  maxFieldViolations,
  toFieldViolation,
  toFieldViolations,
  type ValidatorErrorItem,
} from "./field-violations.js";
export { int32Format, int32Range, int64Format } from "./formats.js";
export {
  defaultMaxBodyBytes,
  type JsonBody,
  type JsonBodyOptions,
  type JsonBodyParser,
  type JsonBodyReader,
  jsonBodyParser,
  jsonBodyReader,
  jsonMediaTypes,
} from "./json-body.js";
export { deref, pointerToken, resolvePointer } from "./json-pointer.js";
export {
  createLogger,
  type Logger,
  type LoggerOptions,
  type RequestLog,
  type RequestRecord,
  redactPaths,
  requestId,
  requestLogger,
} from "./logging.js";
export { isJsonMediaType, mediaTypeOf } from "./media-types.js";
export { type ParsedQuery, parseQuery, parseQueryString, pathOf, type Query, queryNames, searchOf } from "./query.js";
export { createRouteTable, type RouteEntry, type RouteMatch, type RouteTable } from "./routes.js";
export { type AjvOptions, createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
export {
  defaultSpecPath,
  loadSpec,
  type OpenApiDocument,
  type SpecOperation,
  type SpecParameter,
  specOperations,
} from "./spec.js";
