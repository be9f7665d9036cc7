import type { Middleware } from "openapi-fetch";
import { ComputeNetworkError } from "../compute-network-error.js";

/** Where a call went, as middleware sees it. */
interface Call {
  request: Request;
  schemaPath: string;
  options: { baseUrl: string };
}

/**
 * What a fetch that rejected should throw: a {@link ComputeNetworkError} for a call that got no response, or
 * `undefined` to leave the error as it is, for an abort (the timeout's `TimeoutError`, a caller's own reason).
 */
export function networkErrorOf(error: unknown, { request, schemaPath, options }: Call): Error | undefined {
  if (request.signal.aborted || error instanceof ComputeNetworkError) return undefined;
  return new ComputeNetworkError({ baseUrl: options.baseUrl, method: request.method, path: schemaPath, cause: error });
}

/**
 * Turns a fetch that rejected before any response (connection refused, DNS, TLS, reset) into a
 * {@link ComputeNetworkError} naming the base URL; a timeout or an abort is passed on unchanged. openapi-fetch calls
 * `onError` for the first attempt only; the retry middleware uses {@link networkErrorOf} for the others.
 */
export function networkError(): Middleware {
  return {
    onError({ error, ...call }) {
      return networkErrorOf(error, call);
    },
  };
}
