/**
 * The backend connection: an undici keep-alive pool, one request per call, the whole response body collected
 * under a size limit and a deadline, and every fault turned into the error body's status. The request goes
 * through undici's dispatcher interface (a handler with callbacks) rather than its `request()` API, so that a
 * response is read without a Readable stream, an async iterator or an AbortController per request.
 */
import type { Readable } from "node:stream";
import { ApiError } from "@compute-api/contract";
import { buildConnector, type Dispatcher, Pool } from "undici";
import type { Headers } from "./headers.js";
import { markingConnector, type RetryReason, retryReason } from "./retry.js";
import { faultError, responseTooLarge } from "./upstream-errors.js";

/** One request to the backend. */
export interface UpstreamRequest {
  method: string;
  /** Path and query as the caller sent them; the upstream URL's path is put in front. */
  url: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | Readable | undefined;
  /** Called before the request is sent again on a new connection (see `retryReason`). */
  onRetry?: ((reason: RetryReason, error: unknown) => void) | undefined;
}

/** A complete backend response. */
export interface UpstreamResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  /** From sending the request to the last byte of the body. */
  seconds: number;
}

/** A request on its way: its response, and a way to abandon it when the caller goes away. */
export interface Exchange {
  /** Resolves with the whole response; rejects with an ApiError (502/503/504), or with CallerGone after abort(). */
  response: Promise<UpstreamResponse>;
  /** The caller disconnected: the backend request is aborted. */
  abort(): void;
}

/** The backend as the gateway sees it. */
export interface Upstream {
  /** Sends one request. */
  send(request: UpstreamRequest): Exchange;
  /** Resolves true when the backend answers anything at all within the deadline. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** How the backend connection is kept and what is done when the backend closes it under a request. */
export interface UpstreamOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  connections: number;
  /**
   * How long an idle connection is kept, in ms. A backend's `Keep-Alive: timeout=N` lowers it to N s less 1 s,
   * never raises it. Up to 1000 ms undici times it exactly; above, with a 0.5 s grain.
   */
  keepAliveTimeoutMs: number;
}

/** The caller disconnected before the backend answered; there is nobody to answer. */
export class CallerGone extends Error {
  override readonly name = "CallerGone";
}

/** Creates the pool for the upstream URL. */
export function createUpstream(url: URL, options: UpstreamOptions): Upstream {
  const { timeoutMs, maxResponseBytes, keepAliveTimeoutMs } = options;
  const connect = markingConnector(buildConnector({}));
  const pool = new Pool(url.origin, {
    connections: options.connections,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // The backend's Keep-Alive hint may lower the idle time (to its timeout less 1 s), never raise it.
    keepAliveTimeout: keepAliveTimeoutMs,
    keepAliveMaxTimeout: keepAliveTimeoutMs,
    keepAliveTimeoutThreshold: 1000,
    connect,
  });
  // Retries go on a connection of their own (pipelining 0: one request, then closed), not on another idle
  // connection of the pool, which the backend may have closed at the same moment as the first.
  const fresh = new Pool(url.origin, {
    connections: options.connections,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    pipelining: 0,
    connect,
  });
  const basePath = url.pathname.replace(/\/+$/, "");

  const tooLarge = () => responseTooLarge(maxResponseBytes);

  function send(request: UpstreamRequest): Exchange {
    const started = process.hrtime.bigint();
    let controller: Dispatcher.DispatchController | undefined;
    let stop: Error | undefined;
    let timedOut = false;
    const abort = (reason: Error) => {
      stop ??= reason;
      controller?.abort(reason);
    };
    let status = 0;
    let retried = false;
    let headers: Headers = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const response = new Promise<UpstreamResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        timedOut = true;
        abort(new Error("deadline"));
      }, timeoutMs);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (stop) c.abort(stop);
        },
        onResponseStart(c, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders as Headers;
          if (Number(responseHeaders["content-length"]) > maxResponseBytes) c.abort(tooLarge());
        },
        onResponseData(c, chunk) {
          size += chunk.length;
          if (size > maxResponseBytes) c.abort(tooLarge());
          else chunks.push(chunk);
        },
        onResponseEnd() {
          clearTimeout(timer);
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          resolve({ status, headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), seconds });
        },
        onResponseError(_c, error) {
          // Sent again once, on a new connection, when a reused one was closed under it before any response.
          const reason = retried || status !== 0 || stop ? undefined : retryReason(request.method, request.body, error);
          if (reason) {
            retried = true;
            request.onRetry?.(reason, error);
            return dispatch(fresh);
          }
          clearTimeout(timer);
          if (error instanceof ApiError || error instanceof CallerGone) reject(error);
          else reject(faultError(error, timeoutMs, timedOut));
        },
      };
      const dispatch = (dispatcher: Pool) =>
        void dispatcher.dispatch(
          {
            method: request.method as Dispatcher.HttpMethod,
            path: basePath + request.url,
            headers: request.headers,
            body: request.body ?? null,
          },
          handler,
        );
      dispatch(pool);
    });
    return { response, abort: () => abort(new CallerGone("the caller disconnected")) };
  }

  async function ping(): Promise<boolean> {
    try {
      const response = await pool.request({
        method: "GET",
        path: basePath || "/",
        signal: AbortSignal.timeout(Math.min(timeoutMs, 2000)),
      });
      await response.body.dump();
      return true;
    } catch {
      return false;
    }
  }

  return { send, ping, close: async () => void (await Promise.all([pool.close(), fresh.close()])) };
}
