import type { Middleware } from "openapi-fetch";

// A Request's signal follows the signal it was made with only while that Request is alive (undici holds the link
// weakly). The copy made below keeps the original alive, so that a caller's signal, which the original follows,
// still reaches the copy.
const originals = new WeakMap<Request, Request>();

/**
 * Aborts a call that has not finished within `ms` milliseconds, retries and their waits included, with the
 * `TimeoutError` of `AbortSignal.timeout`. A `signal` the caller passes still aborts the call too.
 */
export function timeout(ms: number): Middleware {
  if (!(ms > 0) || !Number.isFinite(ms))
    throw new RangeError("compute-api client: timeoutMs must be a positive number");
  return {
    onRequest({ request }) {
      // Not AbortSignal.any: Node 20 holds its sources weakly, and a timeout signal that nothing listens to can be
      // collected before it fires.
      const controller = new AbortController();
      for (const signal of [request.signal, AbortSignal.timeout(ms)]) {
        if (signal.aborted) controller.abort(signal.reason);
        else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
      }
      // A Request's signal cannot be replaced, so the request is copied with one that also fires on time.
      const copy = new Request(request, { signal: controller.signal });
      originals.set(copy, request);
      return copy;
    },
  };
}
