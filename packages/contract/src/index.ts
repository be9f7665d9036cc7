/** Code shared by the compute-api stub server and gateway: the compiled contract, error mapping, logging. */

export { bearerToken } from "./bearer.js";
export { boundedSchemas } from "./bounded-schemas.js";
export { answerClientErrors } from "./client-errors.js";
export { compareCodePoints } from "./compare-code-points.js";
export {
  type Contract,
  type ContractOperation,
  type ContractOptions,
  compileContract,
  hasRequestBody,
  isJsonMediaType,
  mediaTypeOf,
  missingRequestBody,
  type RequestParts,
  type ResponseParts,
  undeclaredQueryParameter,
  undocumentedStatus,
  unexpectedRequestBody,
} from "./compile-contract.js";
export { type CorsHandler, corsHandler, exposedHeaders, isPreflight, parseOrigins } from "./cors.js";
export {
  ApiError,
  ajvErrorItems,
  badRequestDetail,
  type ErrorBody,
  type ErrorDetail,
  errorInfoDetail,
  type FieldViolation,
  fieldPath,
  invalidItems,
  invalidRequest,
  maxFieldViolations,
  retryInfoDetail,
  toApiError,
  toFieldViolation,
  toFieldViolations,
  type ValidatorErrorItem,
} from "./errors.js";
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
export { type ParsedQuery, parseQuery, parseQueryString, pathOf, type Query, queryNames, searchOf } from "./query.js";
export { type ResponseValidationMode, upstreamContractError } from "./response-check.js";
export { createRouteTable, type RouteEntry, type RouteMatch, type RouteTable } from "./routes.js";
export { type AjvOptions, createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
export {
  defaultSpecPath,
  deref,
  loadSpec,
  type OpenApiDocument,
  type SpecOperation,
  type SpecParameter,
  specOperations,
} from "./spec.js";
