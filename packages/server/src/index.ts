/**
 * @compute-api/server: the compute service's server side for implementers. `createComputeServer` gives an Express
 * app where the spec decides routing, authentication and validation, and typed handlers do the operations; the
 * rules the spec states in prose (the search query and its scores, resource names, API keys, cluster totals) are
 * `@compute-api/rules`. The validator plumbing it is built with is at `@compute-api/server/validator`; the command
 * line of servers shaped as compute-stub at `@compute-api/server/cli`.
 */
export {
  ApiError,
  alreadyExists,
  catalogueError,
  deadlineExceeded,
  dependencyUnavailable,
  type ErrorBody,
  type FieldViolation,
  internalError,
  invalidRequest,
  notFound,
  permissionDenied,
  unauthenticated,
} from "@compute-api/contract";
export type { ResponseMode } from "./contract-validator.js";
export {
  type Authenticate,
  type ComputeServer,
  type ComputeServerOptions,
  createComputeServer,
} from "./create-compute-server.js";
export { type Listening, type ListenOptions, listen } from "./listen.js";
export { defaultHandlerTimeoutMs, RequestAborted, signalOf } from "./request-deadline.js";
export type {
  Handler,
  HandlerInput,
  Handlers,
  OperationId,
  PathParameters,
  QueryParameters,
  RequestBody,
  ResponseBody,
  Schemas,
} from "./types.js";
