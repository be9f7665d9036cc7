/**
 * @compute-api/server: the compute service's server side for implementers. `createComputeServer` gives an Express
 * app where the spec decides routing, authentication and validation, and typed handlers do the operations; the
 * rules the spec states in prose (the search query and its scores, resource names, API keys, cluster totals) come
 * with it. The validator plumbing it is built with is at `@compute-api/server/validator`; the command line of
 * servers shaped as compute-stub at `@compute-api/server/cli`.
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
export { defaultHandlerTimeoutMs, RequestAborted } from "./request-deadline.js";
export { apiKeyPrefix, hashApiKey, newApiKey } from "./rules/api-keys.js";
export { type ClusterTotals, clusterTotals } from "./rules/cluster-totals.js";
export {
  apiKeyExists,
  clusterMachineNotFound,
  createApiKeysDenied,
  priceBreaksTotals,
  priceTooLong,
  projectDenied,
  searchDenied,
  volumeNotFound,
} from "./rules/operation-errors.js";
export { type PriceChange, priceChange } from "./rules/price-change.js";
export { type ProjectResources, projectResourceCounts } from "./rules/resource-count.js";
export {
  billingAccountName,
  type ProjectCollection,
  projectCollectionNames,
  projectCollections,
  projectName,
  projectResourceName,
  resourceNameOf,
} from "./rules/resource-names.js";
export { type SearchValues, searchValues, visitSearchFields } from "./rules/search-fields.js";
export { parseSearchQuery, type ResourceType, resourceTypes, type SearchQuery } from "./rules/search-query.js";
export { maxSearchResults } from "./rules/search-results.js";
export {
  type MatchScores,
  matchScores,
  maxSearchScore,
  resultScore,
  termScore,
  valueScore,
} from "./rules/search-score.js";
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
