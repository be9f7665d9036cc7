/** Forwarding: the request as received goes upstream, the whole response comes back. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { upstreamRequestHeaders } from "./headers.js";
import { CallerGone, type Upstream, type UpstreamResponse } from "./upstream.js";

const hasUnreadBody = (req: IncomingMessage) =>
  !req.readableEnded && (req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0);

/** How a request goes upstream: the body bytes the JSON parser read, and the Accept-Encoding to send instead of the caller's. */
export interface ForwardOptions {
  parsed?: Buffer | undefined;
  acceptEncoding?: string | undefined;
}

/**
 * Sends a request upstream: method, path and query as received, end-to-end headers, and the body — the bytes
 * the JSON parser read (decompressed, so without Content-Encoding), or else the unread stream. Resolves
 * undefined when the caller disconnected first, which aborts the upstream request; rejects with the fault's
 * ApiError (502, 503, 504).
 */
export async function forward(upstream: Upstream, req: IncomingMessage, res: ServerResponse, id: string, { parsed, acceptEncoding }: ForwardOptions = {}): Promise<UpstreamResponse | undefined> {
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase();
  const exchange = upstream.send({
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: upstreamRequestHeaders(req, id, parsed !== undefined && encoding !== "identity", acceptEncoding),
    body: parsed ?? (hasUnreadBody(req) ? req : undefined),
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
