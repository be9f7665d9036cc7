/** Forwarding: the request as received goes upstream, the whole response comes back. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { upstreamRequestHeaders } from "./headers.js";
import type { RetryReason } from "./retry.js";
import { CallerGone, type Upstream, type UpstreamResponse } from "./upstream.js";

/**
 * How a request goes upstream: its body, read whole before — the bytes the JSON parser read (decompressed), or
 * the bytes as received (`raw`, sent with their Content-Encoding) — the Accept-Encoding to send instead of the
 * caller's, and what to do when the request is sent again.
 */
export interface ForwardOptions {
  parsed?: Buffer | undefined;
  raw?: Buffer | undefined;
  acceptEncoding?: string | undefined;
  onRetry?: ((reason: RetryReason, error: unknown) => void) | undefined;
}

/**
 * Sends a request upstream: method, path and query as received, end-to-end headers, and the body — the bytes
 * the JSON parser read (decompressed, so without Content-Encoding), or else the bytes as received. Resolves
 * undefined when the caller disconnected first, which aborts the upstream request; rejects with the fault's
 * ApiError (502, 503, 504).
 */
export async function forward(
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  { parsed, raw, acceptEncoding, onRetry }: ForwardOptions = {},
): Promise<UpstreamResponse | undefined> {
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase();
  const exchange = upstream.send({
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: upstreamRequestHeaders(req, id, parsed !== undefined && encoding !== "identity", acceptEncoding),
    body: parsed ?? raw,
    onRetry,
  });
  const onClose = () => {
    if (!res.writableFinished) exchange.abort();
  };
  res.once("close", onClose);
  if (req.socket.destroyed) exchange.abort();
  try {
    return await exchange.response;
  } catch (error) {
    if (error instanceof CallerGone) return undefined;
    throw error;
  } finally {
    res.off("close", onClose);
  }
}
