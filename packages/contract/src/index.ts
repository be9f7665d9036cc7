/** Code shared by the compute-api stub server and gateway: the compiled contract, error mapping, logging. */
export { defaultSpecPath, deref, loadSpec, specOperations, type OpenApiDocument, type SpecOperation, type SpecParameter } from "./spec.js";
export { createAjv, createSchemaValidator, type AjvOptions, type SchemaValidator } from "./schema-validator.js";
export {
  ajvErrorItems,
  ApiError,
  badRequestDetail,
  errorInfoDetail,
  fieldPath,
  invalidItems,
  invalidRequest,
  maxFieldViolations,
  retryInfoDetail,
  toApiError,
  toFieldViolation,
  toFieldViolations,
  type ErrorBody,
  type ErrorDetail,
  type FieldViolation,
  type ValidatorErrorItem,
} from "./errors.js";
export { boundedSchemas } from "./bounded-schemas.js";
export {
  compileContract,
  hasRequestBody,
  isJsonMediaType,
  mediaTypeOf,
  missingRequestBody,
  undeclaredQueryParameter,
  undocumentedStatus,
  unexpectedRequestBody,
  type Contract,
  type ContractOperation,
  type ContractOptions,
  type RequestParts,
  type ResponseParts,
} from "./compile-contract.js";
export { createRouteTable, type RouteEntry, type RouteMatch, type RouteTable } from "./routes.js";
export { parseQuery, parseQueryString, pathOf, queryNames, searchOf, type ParsedQuery, type Query } from "./query.js";
export { bearerToken } from "./bearer.js";
export { defaultMaxBodyBytes, jsonBodyParser, jsonBodyReader, jsonMediaTypes, type JsonBody, type JsonBodyOptions, type JsonBodyParser, type JsonBodyReader } from "./json-body.js";
export { upstreamContractError, type ResponseValidationMode } from "./response-check.js";
export { answerClientErrors } from "./client-errors.js";
export { corsHandler, exposedHeaders, isPreflight, parseOrigins, type CorsHandler } from "./cors.js";
export { createLogger, redactPaths, requestId, requestLogger, type Logger, type LoggerOptions, type RequestLog, type RequestRecord } from "./logging.js";
export { compareCodePoints } from "./compare-code-points.js";
