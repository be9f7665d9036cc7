/**
 * `@compute-api/contract/internal`: what the packages of this repository share beyond the public entry — the
 * pieces the compiled contract is made of (the request checks, the bounded schemas, JSON pointers, formats, query
 * parsing, Ajv set-up), the gateway's and the validator's own answers of the catalogue. It follows the packages' versions but makes no promise to other users: import from the main entry.
 */

export { bearerToken } from "./bearer.js";
export { boundedSchemas } from "./bounded-schemas.js";
export {
  hasRequestBody,
  missingRequestBody,
  undeclaredQueryParameter,
  unexpectedRequestBody,
} from "./check-request.js";
export {
  invalidRequestTarget,
  malformedUri,
  methodNotAllowed,
  reasonOfStatus,
  shuttingDown,
  unsupportedMediaType,
  upstreamConnectionLost,
  upstreamContractError,
  upstreamNotReady,
  upstreamResponseTooLarge,
  upstreamTimeout,
  upstreamTlsFailed,
  upstreamUnavailable,
} from "./error-catalogue.js";
export { maxFieldViolations } from "./field-violations.js";
export { int32Format, int32Range } from "./formats.js";
export { deref, pointerToken, resolvePointer } from "./json-pointer.js";
export { mediaTypeOf } from "./media-types.js";
export { parseQueryString, pathOf, queryNames, searchOf } from "./query.js";
export { createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
export { specOperations } from "./spec.js";
