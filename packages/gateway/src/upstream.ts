/**
 * The backend connection: an undici keep-alive pool, one request per call, the whole response body read
 * under a size limit and a deadline, and every fault turned into the error body's status.
 */
import type { Readable } from "node:stream";
import { ApiError, errorInfoDetail, retryInfoDetail } from "@compute-api/contract";
import { Pool } from "undici";
import type { Headers } from "./headers.js";

/** One request to the backend. */
export interface UpstreamRequest {
  method: string;
  /** Path and query as the caller sent them; the upstream URL's path is put in front. */
  url: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | Readable | undefined;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

/** A complete backend response. */
export interface UpstreamResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  /** From sending the request to the last byte of the body. */
  seconds: number;
}

/** The backend as the gateway sees it. */
export interface Upstream {
  /** Sends one request; rejects with an ApiError (502/503/504) on a fault, or with CallerGone. */
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  /** Resolves true when the backend answers anything at all within the deadline. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The caller disconnected before the backend answered; there is nobody to answer. */
export class CallerGone extends Error {
  override readonly name = "CallerGone";
}

// Errors that mean no connection could be made, as opposed to one that broke.
const unreachable = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "UND_ERR_CONNECT_TIMEOUT"]);
// undici's own timeouts, set to the same deadline, may fire a moment before the gateway's.
const timeouts = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

const errorCode = (error: unknown): string | undefined => {
  const e = error as { code?: string; cause?: { code?: string }; errors?: { code?: string }[] } | undefined;
  return e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
};

/** Maps a failed request onto the gateway's answer. */
function faultError(error: unknown, timeoutMs: number, timedOut: boolean): ApiError {
  let apiError: ApiError;
  if (timedOut || timeouts.has(errorCode(error) ?? "")) {
    apiError = new ApiError(504, `upstream did not respond within ${timeoutMs} ms`, [errorInfoDetail("UPSTREAM_TIMEOUT")]);
  } else if (unreachable.has(errorCode(error) ?? "")) {
    apiError = new ApiError(503, "service unavailable: the upstream cannot be reached", [errorInfoDetail("UPSTREAM_UNAVAILABLE"), retryInfoDetail(1)], {
      "Retry-After": "1",
    });
  } else {
    apiError = new ApiError(502, "upstream connection closed before the response was complete", [errorInfoDetail("UPSTREAM_CONNECTION_LOST")]);
  }
  // Logged by the error handler with the undici error as its cause; never sent.
  Object.defineProperty(apiError, "cause", { value: error, enumerable: false });
  return apiError;
}

/** Creates the pool for the upstream URL. */
export function createUpstream(url: URL, options: { timeoutMs: number; maxResponseBytes: number; connections: number }): Upstream {
  const { timeoutMs, maxResponseBytes } = options;
  const pool = new Pool(url.origin, { connections: options.connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const basePath = url.pathname.replace(/\/+$/, "");

  const tooLarge = () =>
    new ApiError(502, `upstream response body is larger than the limit of ${maxResponseBytes} bytes`, [errorInfoDetail("UPSTREAM_RESPONSE_TOO_LARGE")]);

  async function send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const started = process.hrtime.bigint();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const callerGone = () => controller.abort();
    if (request.signal.aborted) controller.abort();
    request.signal.addEventListener("abort", callerGone, { once: true });
    try {
      const response = await pool.request({
        method: request.method as "GET",
        path: basePath + request.url,
        headers: request.headers,
        body: request.body ?? null,
        signal: controller.signal,
      });
      const declared = Number(response.headers["content-length"]);
      if (declared > maxResponseBytes) {
        response.body.on("error", () => {}).destroy();
        throw tooLarge();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        // Leaving the loop destroys the body, which closes the connection.
        if (size > maxResponseBytes) throw tooLarge();
        chunks.push(chunk);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      return { status: response.statusCode, headers: response.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), seconds };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (request.signal.aborted && !timedOut) throw new CallerGone("the caller disconnected");
      throw faultError(error, timeoutMs, timedOut);
    } finally {
      clearTimeout(timer);
      request.signal.removeEventListener("abort", callerGone);
    }
  }

  async function ping(): Promise<boolean> {
    try {
      const response = await pool.request({ method: "GET", path: basePath || "/", signal: AbortSignal.timeout(Math.min(timeoutMs, 2000)) });
      await response.body.dump();
      return true;
    } catch {
      return false;
    }
  }

  return { send, ping, close: () => pool.close() };
}
