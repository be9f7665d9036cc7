import { ComputeApiError } from "./compute-api-error.js";

/** The shape of every openapi-fetch result: `data` on success, `error` otherwise. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The `data` of a successful call, or a thrown {@link ComputeApiError}, for callers who prefer exceptions:
 * `const machine = unwrap(await client.PATCH(...))`.
 */
export function unwrap<Result extends FetchResult>(result: Result): NonNullable<Result["data"]> {
  // openapi-fetch returns `{ error: undefined }` for a failure with an empty body, so the status decides.
  if (!result.response.ok || result.error !== undefined) {
    throw new ComputeApiError(result.response.status, result.error);
  }
  return result.data as NonNullable<Result["data"]>;
}
