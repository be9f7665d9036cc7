export { ComputeApiError } from "./compute-api-error.js";
export { type ComputeClient, type ComputeClientOptions, createComputeClient } from "./create-compute-client.js";
export { compareDecimals, type DecimalParts, isDecimal, normalizeDecimal, parseDecimal } from "./decimal.js";
export { isBadRequestDetail, isErrorInfoDetail, isRetryInfoDetail } from "./error-details.js";
export type { ApiKey } from "./middleware/auth.js";
export type { RetryOptions } from "./middleware/retry.js";
export type * from "./types.js";
export { type FetchResult, unwrap } from "./unwrap.js";
