/**
 * The SERVER span of each request a compute server routes, with `@opentelemetry/api` alone: it continues the
 * caller's `traceparent`/`tracestate`, runs everything after it (validation, `authenticate`, the handler) in the
 * span's context, so that an implementer's own spans and instrumented libraries (`pg`) nest under it, and ends
 * when the answer is sent or the connection closes. Named `GET /v1/resources/search` once routed, it holds the
 * stable HTTP conventions, the operationId, and an error answer's ErrorInfo reason and field names (never a
 * value, a header besides the user agent, or a body). Without a registered SDK (`startTracing` of
 * `@compute-api/runtime/tracing` not configured) the API is a no-op and the middleware only calls `next`.
 */
import type { ServerResponse } from "node:http";
import {
  ATTR_OPERATION_ID,
  callerContext,
  httpSpanName,
  serverRequestAttributes,
  setErrorDetails,
  setHttpRoute,
  setServerResponse,
} from "@compute-api/runtime/tracing";
import { context, isSpanContextValid, type Span, SpanKind, trace } from "@opentelemetry/api";
import type { Request, RequestHandler } from "express";

/** The span of each response being answered. */
const spans = new WeakMap<ServerResponse, Span>();

/** How a finished request is named: its route template (`/v1/projects/{projectId}`) and operationId, if routed. */
export type RouteOf = (req: Request) => { route: string | undefined; operationId: string | undefined };

/**
 * The middleware that opens a request's SERVER span; first in the pipeline, so that its span covers the whole
 * request and is the active span of everything after it.
 */
export function requestSpans(routeOf: RouteOf): RequestHandler {
  const tracer = trace.getTracer("@compute-api/server");
  return (req, res, next) => {
    const parent = callerContext(req.headers);
    const span = tracer.startSpan(httpSpanName(req.method, undefined), { kind: SpanKind.SERVER }, parent);
    // Tracing off: the no-op span of the API has no valid context; nothing to run inside.
    if (!isSpanContextValid(span.spanContext())) return next();
    if (span.isRecording()) {
      span.setAttributes(serverRequestAttributes(req));
      spans.set(res, span);
      res.once("close", () => {
        const { route, operationId } = routeOf(req);
        if (route !== undefined) setHttpRoute(span, req.method, route);
        if (operationId !== undefined) span.setAttribute(ATTR_OPERATION_ID, operationId);
        setServerResponse(span, res.headersSent ? res.statusCode : undefined);
        span.end();
      });
    }
    context.with(trace.setSpan(parent, span), next);
  };
}

/** Records on the request's span what an error answer says: its ErrorInfo reason and the fields at fault. */
export function recordErrorAnswer(res: ServerResponse, error: { details?: unknown }): void {
  const span = spans.get(res);
  if (span !== undefined) setErrorDetails(span, error);
}
