/** Forwarding: the request as received goes upstream, the whole response comes back. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { upstreamRequestHeaders } from "./headers.js";
import { CallerGone, type Upstream, type UpstreamResponse } from "./upstream.js";

/**
 * How a request goes upstream: its body, read whole before — the bytes the JSON parser read (decompressed), or
 * the bytes as received (`raw`, sent with their Content-Encoding) — the Accept-Encoding to send instead of the
 * caller's, and the operation it was routed to (with its route template), for the upstream's interceptors.
 */
export interface ForwardOptions {
  parsed?: Buffer | undefined;
  raw?: Buffer | undefined;
  acceptEncoding?: string | undefined;
  operationId?: string | undefined;
  route?: string | undefined;
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
  { parsed, raw, acceptEncoding, operationId, route }: ForwardOptions = {},
): Promise<UpstreamResponse | undefined> {
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase();
  const exchange = upstream.send({
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: upstreamRequestHeaders(req, id, parsed !== undefined && encoding !== "identity", acceptEncoding),
    body: parsed ?? raw,
    operationId,
    route,
  });
  const onClose = () => {
    if (!res.writableFinished) exchange.abort();
  };
  // `on`, not `once`: a response closes once, and `once` would wrap the listener (an object and a bound function).
  res.on("close", onClose);
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
