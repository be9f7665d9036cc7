import type { Middleware } from "openapi-fetch";
import { errorDetailsOf, isRetryInfoDetail } from "../error-details.js";
import { networkErrorOf } from "./network-error.js";

/** How a GET answered with 429 or 503 is retried. */
export interface RetryOptions {
  /** Attempts in all, the first one included (default 3; 1 means no retry). */
  maxAttempts?: number;
  /** Backoff before the first retry, doubled before each further one (default 250 ms). */
  baseDelayMs?: number;
  /** Cap on the backoff. A server that asks for a longer wait gets its answer returned instead (default 10 s). */
  maxDelayMs?: number;
}

const RETRYABLE_STATUSES = new Set([429, 503]);
// A 429 or 503 to a PATCH or POST does not prove the change was not applied, so only GET is ever retried.
const RETRYABLE_METHODS = new Set(["GET"]);
const DURATION = /^([0-9]+)(?:\.([0-9]{1,9}))?s$/;

/**
 * Retries a GET answered with 429 or 503, waiting at least as long as the `Retry-After` header or the
 * google.rpc.RetryInfo detail asks, otherwise a capped exponential backoff with jitter. The last answer is
 * returned as is, so the caller still sees the error body when retries run out.
 * @see #/components/responses/TooManyRequests
 * @see #/components/responses/ServiceUnavailable
 */
export function retry(options: RetryOptions = {}): Middleware {
  const { maxAttempts = 3, baseDelayMs = 250, maxDelayMs = 10_000 } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError("compute-api client: retry.maxAttempts must be an integer of 1 or more");
  }
  if (!(baseDelayMs >= 0 && maxDelayMs >= 0)) {
    throw new RangeError("compute-api client: retry delays must be zero or more milliseconds");
  }

  async function delayBeforeRetry(response: Response, retryNumber: number): Promise<number | undefined> {
    const asked = await serverDelayMs(response);
    if (asked !== undefined && asked > maxDelayMs) return undefined;
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (retryNumber - 1));
    // "Equal jitter": never less than half the backoff, so waits still grow, but clients that failed together
    // do not come back together.
    const jittered = backoff / 2 + (Math.random() * backoff) / 2;
    return Math.max(asked ?? 0, jittered);
  }

  return {
    async onResponse({ request, response, schemaPath, options }) {
      if (!RETRYABLE_METHODS.has(request.method)) return undefined;
      // Called unbound, as openapi-fetch calls it: a browser's fetch throws when `this` is not the window.
      const { fetch } = options;
      let current = response;
      for (let attempt = 2; attempt <= maxAttempts && RETRYABLE_STATUSES.has(current.status); attempt++) {
        const delay = await delayBeforeRetry(current, attempt - 1);
        if (delay === undefined) break;
        await current.body?.cancel();
        await sleep(delay, request.signal);
        // openapi-fetch hands middleware the fetch in use; a GET has no body, so its Request can be sent again.
        // A rejection here does not reach onError, so it is turned into the same network error by hand.
        current = await fetch(request).catch((error: unknown) => {
          throw networkErrorOf(error, { request, schemaPath, options }) ?? error;
        });
      }
      return current;
    },
  };
}

/** The wait the server asks for, in milliseconds: the longer of `Retry-After` and RetryInfo, if either is given. */
async function serverDelayMs(response: Response): Promise<number | undefined> {
  const asked = [retryAfterMs(response.headers.get("Retry-After")), await retryInfoMs(response)];
  const given = asked.filter((ms): ms is number => ms !== undefined);
  return given.length === 0 ? undefined : Math.max(...given);
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^[0-9]+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

async function retryInfoMs(response: Response): Promise<number | undefined> {
  if (!response.headers.get("Content-Type")?.includes("json")) return undefined;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return undefined;
  }
  const retryDelay = errorDetailsOf(body).find(isRetryInfoDetail)?.retryDelay;
  const [, seconds, fraction = ""] = (retryDelay && DURATION.exec(retryDelay)) || [];
  if (seconds === undefined) return undefined;
  return Number(seconds) * 1000 + Number(fraction.padEnd(9, "0")) / 1e6;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
