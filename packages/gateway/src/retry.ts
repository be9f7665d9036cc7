/**
 * The retry of an idempotent request that failed on a reused backend connection: which failures qualify, the
 * connector that tells a reused connection from a new one, and the interceptor that sends the request again.
 */
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { buildConnector, Dispatcher } from "undici";
import {
  ForwardingHandler,
  type UpstreamDispatch,
  type UpstreamDispatchFunction,
  type UpstreamInterceptor,
} from "./upstream-dispatch.js";

/** Why a request was sent again: the backend closed (FIN) or reset (RST) a reused connection under it. */
export type RetryReason = "connection_closed" | "connection_reset";

/** Methods that may be sent twice (RFC 9110 §9.2.2), and so retried after a failure on a reused connection. */
const idempotent = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** Whether a request may be sent twice at all: an idempotent method, and a body that can be sent again. */
const resendable = (method: string, body: Buffer | Readable | null | undefined): boolean =>
  idempotent.has(method) && (body == null || Buffer.isBuffer(body));

const closed = /^(other side )?closed$/;

/** Errors of a socket that had already read a response when it failed: the connection was a reused one. */
const afterResponse = new WeakSet<object>();

/**
 * Why a failed request may be sent again on a new connection, or undefined when it may not: only an idempotent
 * request with a buffered (replayable) body, that failed on a reused connection because the backend closed or
 * reset it before any byte of the response arrived. That is the race of a backend closing an idle keep-alive
 * connection just as a request is written on it (RFC 9112 §9.3.1; nginx's `proxy_next_upstream error`).
 */
export function retryReason(
  method: string,
  body: Buffer | Readable | undefined,
  error: unknown,
): RetryReason | undefined {
  if (!resendable(method, body)) return undefined;
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
export function markingConnector(connector: buildConnector.connector): buildConnector.connector {
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

/**
 * The undici interceptor that sends a request once more, on `fresh` (a pool whose connections carry one request
 * each), when it failed as `retryReason` says may be resent. The resend's dispatch options are the first's with
 * `resend` set, and its events go on to the same handler.
 */
export function resendOnNewConnection(fresh: UpstreamDispatchFunction): UpstreamInterceptor {
  return (dispatch) => (options, handler) =>
    resendable(options.method, options.body)
      ? dispatch(options, new ResendOnce(options, handler, fresh))
      : dispatch(options, handler);
}

/** The handler of a request that may be resent once: before any byte of a response, after a retryable failure. */
class ResendOnce extends ForwardingHandler {
  private resent = false;

  constructor(
    private readonly options: UpstreamDispatch,
    handler: Dispatcher.DispatchHandler,
    private readonly fresh: UpstreamDispatchFunction,
  ) {
    super(handler);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    const { options } = this;
    const reason =
      this.status !== 0 || this.resent ? undefined : retryReason(options.method, options.body ?? undefined, error);
    if (reason) {
      this.resent = true;
      this.fresh({ ...options, resend: { reason, error } }, this);
    } else super.onResponseError(controller, error);
  }
}
