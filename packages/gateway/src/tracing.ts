/**
 * The gateway's traces (OpenTelemetry): a SERVER span per request, named after its operation, and a CLIENT span per
 * upstream attempt under it, whose traceparent goes to the backend. Built once, when the gateway is given a tracer;
 * without one createGateway installs none of this, and a request runs no tracing code at all (not even the API's
 * no-op objects). A request that is not sampled only passes its trace context on (its traceparent, flag 00), with
 * no span and no context to run in. No span holds a header value but the User-Agent, a body, or a value of the query.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { ApiError } from "@compute-api/contract";
import {
  ATTR_OPERATION_ID,
  callerContext,
  clientClosedErrorType,
  httpSpanName,
  serverRequestAttributes,
  setErrorDetails,
  setHttpRoute,
  setServerResponse,
  spanMethod,
} from "@compute-api/runtime/tracing";
import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { RetryReason } from "./retry.js";
import { CallerGone, type Exchange, type Upstream, type UpstreamRequest } from "./upstream.js";

/** What the response check said of an upstream response (`compute_api.response_check`). */
export type ResponseVerdict = "passed" | "failed" | "not_checked";

/** The hooks of a traced gateway; each one is called only when the gateway traces. */
export interface GatewayTracing {
  /** The request listener, with each request but the gateway's own endpoints (`own`) in a SERVER span. */
  listener(listener: RequestListener, own: (req: IncomingMessage) => unknown): RequestListener;
  /** The upstream, with a CLIENT span per attempt whose traceparent (and tracestate) the backend receives. */
  upstream(upstream: Upstream, url: URL): Upstream;
  /** The request was routed to an operation: the span is named after it. */
  routed(res: ServerResponse, operationId: string, template: string): void;
  /** The gateway answers with an error of its own: a refusal (its reason and violated fields), or a fault. */
  answered(res: ServerResponse, error: ApiError): void;
  /** The response check's verdict, and the fields a failed check named. */
  checked(res: ServerResponse, verdict: ResponseVerdict, fields?: readonly string[]): void;
}

/** The response check's verdict on the SERVER span: `passed`, `failed` or `not_checked` (`--response-validation off`). */
export const ATTR_RESPONSE_CHECK = "compute_api.response_check";
/** The fields of the upstream response a failed check named (never their values). */
export const ATTR_RESPONSE_CHECK_FIELDS = "compute_api.response_check.fields";
/** Why an attempt was sent again (`connection_closed`, `connection_reset`), on the CLIENT span of the resend. */
export const ATTR_RETRY_REASON = "compute_api.retry.reason";

/** The path of a request target, without its query (whose values are the caller's). */
const pathOf = (url: string): string => {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
};

/** The query with every value replaced, so that a span shows which parameters came but none of their values. */
const redactedQuery = (url: string): string => {
  const query = url.indexOf("?");
  return query === -1 ? "" : url.slice(query).replace(/=[^&]*/g, "=REDACTED");
};

/** Ends a CLIENT span as failed, `error.type` saying why. */
const failed = (span: Span, type: string) => {
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
};

/** `error.type` of a failed attempt: the socket's error code, `timeout`, or the caller went away. */
function attemptErrorType(error: unknown): string {
  if (error instanceof CallerGone) return clientClosedErrorType;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  return (error as { status?: number }).status === 504 ? "timeout" : "_OTHER";
}

/** Creates the hooks of a traced gateway: spans from `tracer`, context through the registered propagator. */
export function gatewayTracing(tracer: Tracer): GatewayTracing {
  /** The SERVER span of each traced request, for the hooks that are given its response. */
  const spans = new WeakMap<ServerResponse, Span>();
  /** The route template of each routed SERVER span, for the names of its CLIENT spans. */
  const routes = new WeakMap<Span, string>();

  function listener(inner: RequestListener, own: (req: IncomingMessage) => unknown): RequestListener {
    return (req, res) => {
      if (own(req)) return inner(req, res);
      const parent = callerContext(req.headers);
      const span = tracer.startSpan(httpSpanName(req.method, undefined), { kind: SpanKind.SERVER }, parent);
      const active = trace.setSpan(parent, span);
      if (!span.isRecording()) {
        // Not sampled: nothing to fill in, end or run in a context (no AsyncLocalStorage on its path). The backend
        // continues the trace, its id and unsampled flag, from the traceparent forwarded with the caller's headers.
        propagation.inject(active, req.headers);
        return inner(req, res);
      }
      span.setAttributes(serverRequestAttributes(req));
      spans.set(res, span);
      res.once("close", () => {
        setServerResponse(span, res.headersSent ? res.statusCode : undefined);
        span.end();
      });
      context.with(active, inner, undefined, req, res);
    };
  }

  function upstream(inner: Upstream, url: URL): Upstream {
    const address = url.hostname;
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const base = url.origin + url.pathname.replace(/\/+$/, "");

    /** Starts the CLIENT span of an attempt and writes its traceparent (and tracestate) into the request's headers. */
    const attempt = (parent: Context, route: string | undefined, request: UpstreamRequest, resend?: RetryReason) => {
      const attributes: Attributes = {
        "server.address": address,
        "server.port": port,
        "http.request.method": spanMethod(request.method),
        "url.full": base + pathOf(request.url) + redactedQuery(request.url),
      };
      if (route !== undefined) attributes["url.template"] = route;
      if (resend) {
        attributes["http.request.resend_count"] = 1;
        attributes[ATTR_RETRY_REASON] = resend;
      }
      const span = tracer.startSpan(httpSpanName(request.method, route), { kind: SpanKind.CLIENT, attributes }, parent);
      propagation.inject(trace.setSpan(parent, span), request.headers);
      return span;
    };

    return {
      ...inner,
      send(request: UpstreamRequest): Exchange {
        const parent = context.active();
        const serverSpan = trace.getSpan(parent);
        // A request that is not sampled gets no span of its own: its traceparent went upstream with its headers.
        if (!serverSpan?.isRecording()) return inner.send(request);
        const route = routes.get(serverSpan);
        let span = attempt(parent, route, request);
        const onRetry = request.onRetry;
        // A resend is a span of its own, after the failed one, with its own traceparent.
        request.onRetry = (reason, error) => {
          failed(span, reason);
          span = attempt(parent, route, request, reason);
          onRetry?.(reason, error);
        };
        const exchange = inner.send(request);
        exchange.response.then(
          ({ status }) => {
            span.setAttribute("http.response.status_code", status);
            if (status >= 400) failed(span, String(status));
            else span.end();
          },
          (error: unknown) => {
            setErrorDetails(span, error);
            failed(span, attemptErrorType(error));
          },
        );
        return exchange;
      },
    };
  }

  return {
    listener,
    upstream,
    routed(res, operationId, template) {
      const span = spans.get(res);
      if (!span?.isRecording()) return;
      routes.set(span, template);
      setHttpRoute(span, res.req.method, template);
      span.setAttribute(ATTR_OPERATION_ID, operationId);
    },
    answered(res, error) {
      const span = spans.get(res);
      if (span?.isRecording()) setErrorDetails(span, error);
    },
    checked(res, verdict, fields) {
      const span = spans.get(res);
      if (!span?.isRecording()) return;
      span.setAttribute(ATTR_RESPONSE_CHECK, verdict);
      if (fields && fields.length > 0) span.setAttribute(ATTR_RESPONSE_CHECK_FIELDS, [...new Set(fields)].slice(0, 20));
    },
  };
}
