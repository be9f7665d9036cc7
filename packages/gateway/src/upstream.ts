/**
 * The backend connection: an undici keep-alive pool, one request per call, the whole response body collected
 * under a size limit and a deadline, and every fault turned into the error body's status. The request goes
 * through undici's dispatcher interface (a handler with callbacks) rather than its `request()` API, so that a
 * response is read without a Readable stream, an async iterator or an AbortController per request. What else
 * happens to a request on its way — the resend on a new connection (retry.ts), its metrics, its CLIENT span — is
 * composed onto the pool as undici interceptors (`pool.compose(…)`).
 */
import type { Readable } from "node:stream";
import { ApiError } from "@compute-api/contract";
import { buildConnector, type Dispatcher, Pool } from "undici";
import type { Headers } from "./headers.js";
import { markingConnector, resendOnNewConnection } from "./retry.js";
import type { UpstreamDispatch, UpstreamDispatchFunction, UpstreamInterceptor } from "./upstream-dispatch.js";
import { faultError, responseTooLarge } from "./upstream-errors.js";

export type { UpstreamDispatch, UpstreamInterceptor } from "./upstream-dispatch.js";

/** One request to the backend. */
export interface UpstreamRequest {
  method: string;
  /** Path and query as the caller sent them; the upstream URL's path is put in front. */
  url: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | Readable | undefined;
  /** The operation the request was routed to, and its route template; neither for a request forwarded unvalidated. */
  operationId?: string | undefined;
  route?: string | undefined;
}

/** A complete backend response. */
export interface UpstreamResponse {
  status: number;
  headers: Headers;
  body: Buffer;
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

/** What is composed onto the pool: undici interceptors, each list innermost first (as `compose` takes them). */
export interface UpstreamInterceptors {
  /** Around each attempt: the first, and a resend on a new connection. */
  attempt?: UpstreamInterceptor[];
  /** Around a resend only. */
  resend?: UpstreamInterceptor[];
  /** Around the whole exchange, a resend included. */
  exchange?: UpstreamInterceptor[];
}

/** The caller disconnected before the backend answered; there is nobody to answer. */
export class CallerGone extends Error {
  override readonly name = "CallerGone";
}

/** The deadline of an exchange has passed. */
const expire = (exchange: PendingExchange) => exchange.expire();

/** One exchange: the handler that collects the response under the limit and within the deadline. */
class PendingExchange implements Exchange, Dispatcher.DispatchHandler {
  readonly response: Promise<UpstreamResponse>;
  private resolve!: (response: UpstreamResponse) => void;
  private reject!: (error: Error) => void;
  private controller: Dispatcher.DispatchController | undefined = undefined;
  /** Why the exchange was stopped (the caller went away, the deadline), applied to an attempt not started yet. */
  private stop: Error | undefined = undefined;
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;
  private status = 0;
  private headers: Headers = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxResponseBytes: number,
  ) {
    this.response = new Promise<UpstreamResponse>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.timer = setTimeout(expire, timeoutMs, this);
  }

  abort(): void {
    this.halt(new CallerGone("the caller disconnected"));
  }

  expire(): void {
    this.timedOut = true;
    this.halt(new Error("deadline"));
  }

  private halt(reason: Error): void {
    this.stop ??= reason;
    this.controller?.abort(reason);
  }

  /** What a failure is answered as: the gateway's own ApiError and CallerGone as they are, any other mapped. */
  faultOf(error: unknown): Error {
    if (error instanceof ApiError || error instanceof CallerGone) return error;
    return faultError(error, this.timeoutMs, this.timedOut);
  }

  private tooLarge(): Error {
    return responseTooLarge(this.maxResponseBytes);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stop) controller.abort(this.stop);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Headers): void {
    this.status = status;
    this.headers = headers;
    if (Number(headers["content-length"]) > this.maxResponseBytes) controller.abort(this.tooLarge());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxResponseBytes) controller.abort(this.tooLarge());
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    clearTimeout(this.timer);
    const { chunks, size } = this;
    this.resolve({
      status: this.status,
      headers: this.headers,
      body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size),
    });
  }

  onResponseError(_controller: unknown, error: Error): void {
    clearTimeout(this.timer);
    this.reject(this.faultOf(error));
  }
}

/** Creates the pool for the upstream URL, with `interceptors` composed onto it. */
export function createUpstream(url: URL, options: UpstreamOptions, interceptors: UpstreamInterceptors = {}): Upstream {
  const { timeoutMs, maxResponseBytes, keepAliveTimeoutMs } = options;
  const { attempt = [], resend = [], exchange = [] } = interceptors;
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
  // Resends go on a connection of their own (pipelining 0: one request, then closed), not on another idle
  // connection of the pool, which the backend may have closed at the same moment as the first.
  const fresh = new Pool(url.origin, {
    connections: options.connections,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    pipelining: 0,
    connect,
  });
  const compose = (dispatcher: Pool, layers: UpstreamInterceptor[]) =>
    dispatcher.compose(...(layers as Dispatcher.DispatcherComposeInterceptor[])).dispatch as UpstreamDispatchFunction;
  const dispatch = compose(pool, [
    ...attempt,
    resendOnNewConnection(compose(fresh, [...attempt, ...resend])),
    ...exchange,
  ]);
  const basePath = url.pathname.replace(/\/+$/, "");

  function send(request: UpstreamRequest): Exchange {
    const exchange = new PendingExchange(timeoutMs, maxResponseBytes);
    const options: UpstreamDispatch = {
      method: request.method as Dispatcher.HttpMethod,
      path: basePath + request.url,
      headers: request.headers,
      body: request.body ?? null,
      operationId: request.operationId,
      route: request.route,
      exchange,
      resend: undefined,
    };
    try {
      dispatch(options, exchange);
    } catch (error) {
      exchange.onResponseError(undefined, error as Error);
    }
    return exchange;
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
