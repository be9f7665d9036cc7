/**
 * The gateway's traces (OpenTelemetry): a SERVER span per request, named after its operation, around the handler,
 * and a CLIENT span per upstream attempt under it, whose traceparent goes to the backend (tracing-attempts.ts).
 * Built once, when the gateway is given a tracer; without one createGateway attaches none of this, and a request
 * runs no tracing code at all (not even the API's no-op objects). A request that is not sampled only passes its
 * trace context on (its traceparent, flag 00), with no span and no context to run in. No span holds a header value
 * but the User-Agent, a body, or a value of the query.
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
import { context, propagation, type Span, SpanKind, type Tracer, trace } from "@opentelemetry/api";
import type { HandlerWrapper, RequestNotes } from "./request-notes.js";
import { tracedAttempts } from "./tracing-attempts.js";
import type { UpstreamInterceptor } from "./upstream-dispatch.js";

/** What a traced gateway attaches: around the handler, and around each upstream attempt. */
export interface GatewayTracing {
  /** The wrapper of the handler: each request in a SERVER span, filled in from its notes when it closes. */
  requests: HandlerWrapper;
  /** The interceptor of each attempt to the backend at `url`: a CLIENT span per attempt. */
  upstream(url: URL): UpstreamInterceptor;
}

/** The response check's verdict on the SERVER span: `passed`, `failed` or `not_checked` (`--response-validation off`). */
export const ATTR_RESPONSE_CHECK = "compute_api.response_check";
/** The fields of the upstream response a failed check named (never their values). */
export const ATTR_RESPONSE_CHECK_FIELDS = "compute_api.response_check.fields";

/**
 * Ends a SERVER span with what the request's notes say: the operation and route it was routed to (which name the
 * span), the reason and fields of the gateway's own error answer, the response check's verdict, and the status.
 */
function endServerSpan(span: Span, res: ServerResponse, notes: RequestNotes): void {
  const { route, error, verdict, failedFields } = notes;
  const { operationId } = notes.record;
  if (route !== undefined && operationId !== undefined) {
    setHttpRoute(span, res.req.method, route);
    span.setAttribute(ATTR_OPERATION_ID, operationId);
  }
  if (error) setErrorDetails(span, error);
  if (verdict) {
    span.setAttribute(ATTR_RESPONSE_CHECK, verdict);
    if (failedFields.length > 0) span.setAttribute(ATTR_RESPONSE_CHECK_FIELDS, [...new Set(failedFields)].slice(0, 20));
  }
  setServerResponse(span, res.headersSent ? res.statusCode : undefined);
  span.end();
}

/** Creates what a traced gateway attaches: spans from `tracer`, context through the registered propagator. */
export function gatewayTracing(tracer: Tracer): GatewayTracing {
  const requests: HandlerWrapper = (handler) => (req, res, notes) => {
    const parent = callerContext(req.headers);
    const span = tracer.startSpan(httpSpanName(req.method, undefined), { kind: SpanKind.SERVER }, parent);
    const active = trace.setSpan(parent, span);
    if (!span.isRecording()) {
      // Not sampled: nothing to fill in, end or run in a context (no AsyncLocalStorage on its path). The backend
      // continues the trace, its id and unsampled flag, from the traceparent forwarded with the caller's headers.
      propagation.inject(active, req.headers);
      return handler(req, res, notes);
    }
    span.setAttributes(serverRequestAttributes(req));
    res.once("close", () => endServerSpan(span, res, notes));
    return context.with(active, handler, undefined, req, res, notes);
  };
  return { requests, upstream: (url) => tracedAttempts(tracer, url) };
}
