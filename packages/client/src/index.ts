export { ComputeApiError } from "./compute-api-error.js";
export { createComputeClient, type ComputeClient, type ComputeClientOptions } from "./create-compute-client.js";
export { compareDecimals, isDecimal, normalizeDecimal, parseDecimal, type DecimalParts } from "./decimal.js";
export { isBadRequestDetail, isErrorInfoDetail, isRetryInfoDetail } from "./error-details.js";
export type { ApiKey } from "./middleware/auth.js";
export type { RetryOptions } from "./middleware/retry.js";
export type * from "./types.js";
export { unwrap, type FetchResult } from "./unwrap.js";
