/** Forwarding: the request as received goes upstream, the whole response comes back. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { upstreamRequestHeaders } from "./headers.js";
import { operationIdOf, type GatewayContext } from "./context.js";
import { deliver, respond } from "./responses.js";
import { CallerGone, type UpstreamResponse } from "./upstream.js";

const hasUnreadBody = (req: IncomingMessage) =>
  !req.readableEnded && (req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0);

/**
 * Sends the request upstream: method, path and query, end-to-end headers, and the body bytes the parser read
 * (or the unread stream). Resolves undefined when the caller disconnected, which aborts the upstream request.
 */
async function exchange(ctx: GatewayContext, req: IncomingMessage & { originalUrl: string }, res: ServerResponse): Promise<UpstreamResponse | undefined> {
  const raw = ctx.rawBodies.get(req);
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase();
  const gone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) gone.abort();
  };
  res.once("close", onClose);
  if (req.socket.destroyed) gone.abort();
  ctx.forwarded.add(res);
  try {
    const response = await ctx.upstream.send({
      method: req.method ?? "GET",
      url: req.originalUrl,
      headers: upstreamRequestHeaders(req, String(req.id), raw !== undefined && encoding !== "identity"),
      body: raw ?? (hasUnreadBody(req) ? req : undefined),
      signal: gone.signal,
    });
    ctx.metrics.upstreamSeconds.observe({ operation_id: operationIdOf(req) ?? "unknown", status: String(response.status) }, response.seconds);
    return response;
  } catch (error) {
    if (error instanceof CallerGone) return undefined;
    throw error;
  } finally {
    res.off("close", onClose);
  }
}

/** The last handler: forwards a request the validator accepted and answers with the upstream response. */
export function forwardValidated(ctx: GatewayContext): RequestHandler {
  return async (req, res, next) => {
    const response = await exchange(ctx, req, res);
    if (response) respond(ctx, req, res, next, response);
  };
}

/** Forwards, unvalidated and counted, the requests whose path or method the spec does not describe. */
export function forwardUnknown(ctx: GatewayContext, isSpecRoute: (method: string, path: string) => boolean): RequestHandler {
  return async (req, res, next) => {
    if (!req.url.startsWith("/") || isSpecRoute(req.method, req.path)) return next();
    ctx.metrics.passthrough.inc({ method: req.method });
    const response = await exchange(ctx, req, res);
    if (response) deliver(res, response, req.method);
  };
}
