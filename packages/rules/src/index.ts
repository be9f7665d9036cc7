/**
 * `@compute-api/server/rules`: the rules the spec states in prose (the search query, the fields search reads, its
 * scores and its cap, resource names and a project's resourceCount, cluster totals, the PATCH's price, API keys, the
 * operations' failures), without the server: nothing here loads
 * Express, so a client-side tool such as the conformance runner can hold a backend to the same rules.
 */
export * from "./rules/api-keys.js";
export * from "./rules/cluster-totals.js";
export * from "./rules/operation-errors.js";
export * from "./rules/price-change.js";
export * from "./rules/resource-count.js";
export * from "./rules/resource-names.js";
export * from "./rules/search-fields.js";
export * from "./rules/search-query.js";
export * from "./rules/search-results.js";
export * from "./rules/search-score.js";
