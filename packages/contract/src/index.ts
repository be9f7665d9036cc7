/** Code shared by the compute-api stub server and gateway. */
export { defaultSpecPath, deref, loadSpec, specOperations, type OpenApiDocument, type SpecOperation, type SpecParameter } from "./spec.js";
export { createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
export {
  ApiError,
  badRequestDetail,
  errorInfoDetail,
  fieldPath,
  invalidRequest,
  maxFieldViolations,
  retryInfoDetail,
  toApiError,
  toFieldViolation,
  type ErrorBody,
  type ErrorDetail,
  type FieldViolation,
} from "./errors.js";
export {
  createResponseCheck,
  responseViolations,
  undocumentedStatus,
  upstreamContractError,
  type ResponseCheck,
} from "./response-check.js";
export { answerClientErrors } from "./client-errors.js";
export { createLogger, redactPaths, requestId, requestLogger, type Logger, type LoggerOptions } from "./logging.js";
export {
  bearerToken,
  createContractValidator,
  defaultMaxBodyBytes,
  errorHandler,
  notFound,
  type Authenticate,
  type ContractValidator,
  type ContractValidatorOptions,
  type ResponseValidationMode,
} from "./validator.js";
