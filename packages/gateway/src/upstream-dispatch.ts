/**
 * The dispatch of a request to the backend as the gateway's undici interceptors see it: undici's dispatch options,
 * with what the interceptors read (the operation, the resend), and the interceptor type itself.
 * @see https://github.com/nodejs/undici/blob/main/docs/docs/api/Dispatcher.md#dispatchercomposeinterceptors-interceptor
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import type { RetryReason } from "./retry.js";

/** The dispatch options of a request to the backend. */
export interface UpstreamDispatch extends Dispatcher.DispatchOptions {
  headers: Record<string, string | string[]>;
  body: Buffer | Readable | null;
  /** The operation the request was routed to; undefined for a request forwarded unvalidated. */
  operationId: string | undefined;
  /** Its route template, which names a CLIENT span. */
  route: string | undefined;
  /** The exchange the dispatch is an attempt of (a resend shares it): what a failure of it is answered as. */
  exchange: { faultOf(error: unknown): Error };
  /** Set on a resend (retry.ts): why the attempt before it failed, and its error. */
  resend: { reason: RetryReason; error: unknown } | undefined;
}

/** An undici dispatch function, given the gateway's dispatch options. */
export type UpstreamDispatchFunction = (options: UpstreamDispatch, handler: Dispatcher.DispatchHandler) => boolean;

/** An undici interceptor (`dispatch => dispatch`) of the gateway's requests to the backend. */
export type UpstreamInterceptor = (dispatch: UpstreamDispatchFunction) => UpstreamDispatchFunction;

/**
 * The base of an interceptor's handler: passes every event on to the handler it wraps, and keeps the response's
 * status (0 until one starts). A subclass overrides the events it observes and calls `super`.
 */
export class ForwardingHandler implements Dispatcher.DispatchHandler {
  protected status = 0;

  constructor(protected readonly handler: Dispatcher.DispatchHandler) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
    message?: string,
  ): void {
    this.status = status;
    this.handler.onResponseStart?.(controller, status, headers, message);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.handler.onResponseError?.(controller, error);
  }
}
