/**
 * @compute-api/rules: the rules the spec states in prose, as plain functions without a web framework or Node's
 * HTTP — the search query, its violations, the fields search reads, its scores, its cap and its order; resource
 * names and a project's resourceCount; cluster totals and the PATCH's price; API keys, and the redaction of anything
 * of their form; the operations' failures. The server kit, the stub, its MSW handlers, the conformance runner, the
 * fixtures and a backend of your own use the same ones.
 */
export { apiKeyPrefix, hashApiKey, newApiKey, secretBodies } from "./api-keys.js";
export { type ClusterTotals, clusterTotals } from "./cluster-totals.js";
export { compareCodePoints } from "./compare-code-points.js";
export { redacted, redactKeys } from "./key-redaction.js";
export {
  apiKeyExists,
  clusterMachineNotFound,
  createApiKeysDenied,
  projectDenied,
  searchDenied,
  volumeNotFound,
} from "./operation-errors.js";
export { type PriceChange, priceChange } from "./price-change.js";
export { type ProjectResources, projectResourceCounts } from "./resource-count.js";
export {
  billingAccountName,
  type ProjectCollection,
  projectCollectionNames,
  projectCollections,
  projectName,
  projectResourceName,
  resourceNameOf,
} from "./resource-names.js";
export { type SearchValues, searchValues, visitSearchFields } from "./search-fields.js";
export {
  maxSearchTerms,
  parseSearchQuery,
  type ResourceType,
  resourceTypes,
  type SearchQuery,
} from "./search-query.js";
export { type SearchQueryReason, searchQueryViolations } from "./search-query-violations.js";
export { maxSearchResults } from "./search-results.js";
export { type MatchScores, matchScores, maxSearchScore, resultScore, termScore, valueScore } from "./search-score.js";
