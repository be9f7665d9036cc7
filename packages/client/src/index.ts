// The Decimal helpers live in @compute-api/decimal, which the stub server uses too; the client re-exports them.
export {
  compareDecimals,
  type DecimalParts,
  isDecimal,
  normalizeDecimal,
  parseDecimal,
} from "@compute-api/decimal";
export { ComputeApiError } from "./compute-api-error.js";
export { ComputeNetworkError, type ComputeNetworkErrorInit } from "./compute-network-error.js";
export { type ComputeClient, type ComputeClientOptions, createComputeClient } from "./create-compute-client.js";
export { isBadRequestDetail, isErrorInfoDetail, isRetryInfoDetail } from "./error-details.js";
export type { ApiKey } from "./middleware/auth.js";
export type { RetryOptions } from "./middleware/retry.js";
export type * from "./types.js";
export { type FetchResult, unwrap } from "./unwrap.js";
