/**
 * The retry of an idempotent request that failed on a reused backend connection: which failures qualify, and the
 * connector that tells a reused connection from a new one.
 */
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { buildConnector } from "undici";

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
export function retryReason(
  method: string,
  body: Buffer | Readable | undefined,
  error: unknown,
): RetryReason | undefined {
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
