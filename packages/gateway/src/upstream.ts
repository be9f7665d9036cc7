/**
 * The backend connection: an undici keep-alive pool, one request per call, the whole response body collected
 * under a size limit and a deadline, and every fault turned into the error body's status. The request goes
 * through undici's dispatcher interface (a handler with callbacks) rather than its `request()` API, so that a
 * response is read without a Readable stream, an async iterator or an AbortController per request.
 */
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { ApiError, errorInfoDetail, retryInfoDetail } from "@compute-api/contract";
import { buildConnector, type Dispatcher, Pool } from "undici";
import type { Headers } from "./headers.js";

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

/** Why a request was sent again: the backend closed (FIN) or reset (RST) a reused connection under it. */
export type RetryReason = "connection_closed" | "connection_reset";

/** Methods that may be sent twice (RFC 9110 §9.2.2), and so retried after a failure on a reused connection. */
const idempotent = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

const closed = /^(other side )?closed$/;

/** Errors of a socket that had already read a response when it failed: the connection was a reused one. */
const afterResponse = new WeakSet<object>();

/**
 * Why a failed request may be sent again on a new connection, or undefined when it may not: only an idempotent
 * request with a buffered (replayable) body, that failed on a reused connection because the backend closed or
 * reset it before any byte of the response arrived. That is the race of a backend closing an idle keep-alive
 * connection just as a request is written on it (RFC 9112 §9.3.1; nginx's `proxy_next_upstream error`).
 */
export function retryReason(method: string, body: UpstreamRequest["body"], error: unknown): RetryReason | undefined {
  if (!idempotent.has(method) || (body !== undefined && !Buffer.isBuffer(body))) return undefined;
  const e = error as { code?: string; message?: string; socket?: { bytesRead?: number } } | undefined;
  // undici's SocketError says "other side closed" or "closed" for a close, other words for a bad response.
  if (e?.code === "UND_ERR_SOCKET")
    return closed.test(e.message ?? "") && (e.socket?.bytesRead ?? 0) > 0 ? "connection_closed" : undefined;
  if (e?.code === "ECONNRESET" || e?.code === "EPIPE") return afterResponse.has(e) ? "connection_reset" : undefined;
  return undefined;
}

/**
 * undici's connector, with the socket's errors marked when the socket had read a response before: a reset
 * carries no socket information of its own (undici's "other side closed" does), and this tells a reused
 * connection from a new one.
 */
function markingConnector(connector: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connector(options, (error, socket) => {
      if (socket)
        (socket as Socket).prependListener(
          "error",
          (e: Error) => void ((socket as Socket).bytesRead > 0 && afterResponse.add(e)),
        );
      (callback as (error: Error | null, socket: Socket | null) => void)(error, socket as Socket | null);
    });
}

/** The caller disconnected before the backend answered; there is nobody to answer. */
export class CallerGone extends Error {
  override readonly name = "CallerGone";
}

// Errors that mean no connection could be made, as opposed to one that broke.
const unreachable = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);
// undici's own timeouts, set to the same deadline, may fire a moment before the gateway's.
const timeouts = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

const errorCode = (error: unknown): string | undefined => {
  const e = error as { code?: string; cause?: { code?: string }; errors?: { code?: string }[] } | undefined;
  return e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
};

// OpenSSL's and Node's codes of a TLS handshake or certificate that failed.
const tlsCodes =
  /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH$)/;

/**
 * What went wrong with TLS, in words for the log line, or undefined when the failure is not about TLS. The
 * commonest cause is an https:// upstream URL in front of a server that speaks plain HTTP.
 */
export function tlsProblem(error: unknown): string | undefined {
  const code = errorCode(error) ?? "";
  const message = (error as Error | undefined)?.message ?? "";
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST/.test(code))
    return `the upstream does not speak TLS: is it plain HTTP behind an https:// URL? (${code})`;
  if (tlsCodes.test(code)) return `TLS error with the upstream: ${code}: ${message.split("\n")[0]}`;
  if (/before secure TLS connection was established/.test(message))
    return "TLS error with the upstream: it closed the connection during the TLS handshake";
  return undefined;
}

/** Maps a failed request onto the gateway's answer; the cause is kept (not enumerable) for the log line. */
function faultError(error: unknown, timeoutMs: number, timedOut: boolean): ApiError {
  let apiError: ApiError;
  if (timedOut || timeouts.has(errorCode(error) ?? "")) {
    apiError = new ApiError(504, `upstream did not respond within ${timeoutMs} ms`, [
      errorInfoDetail("UPSTREAM_TIMEOUT"),
    ]);
  } else if (tlsProblem(error)) {
    apiError = new ApiError(502, "the TLS handshake with the upstream failed", [
      errorInfoDetail("UPSTREAM_TLS_FAILED"),
    ]);
  } else if (unreachable.has(errorCode(error) ?? "")) {
    apiError = new ApiError(
      503,
      "service unavailable: the upstream cannot be reached",
      [errorInfoDetail("UPSTREAM_UNAVAILABLE"), retryInfoDetail(1)],
      {
        "Retry-After": "1",
      },
    );
  } else {
    apiError = new ApiError(502, "upstream connection closed before the response was complete", [
      errorInfoDetail("UPSTREAM_CONNECTION_LOST"),
    ]);
  }
  Object.defineProperty(apiError, "cause", { value: error, enumerable: false });
  return apiError;
}

/** 502: the backend's response body (decoded, when it is compressed) is larger than the limit. */
export function responseTooLarge(maxResponseBytes: number): ApiError {
  return new ApiError(502, `upstream response body is larger than the limit of ${maxResponseBytes} bytes`, [
    errorInfoDetail("UPSTREAM_RESPONSE_TOO_LARGE"),
  ]);
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
