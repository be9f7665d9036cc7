/**
 * The gateway's traces (OpenTelemetry): a SERVER span per request, named after its operation, and a CLIENT span per
 * upstream attempt under it, whose traceparent goes to the backend. Built once, when the gateway is given a tracer;
 * without one createGateway installs none of this, and a request runs no tracing code at all (not even the API's
 * no-op objects). A request that is not sampled only passes its trace context on (its traceparent, flag 00), with
 * no span and no context to run in. No span holds a header value but the User-Agent, a body, or a value of the query.
 */
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from "node:http";
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
} from "@compute-api/contract/tracing";
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
import type { Dispatcher } from "undici";
import type { RetryReason } from "./retry.js";
import { CallerGone } from "./upstream.js";
import { ForwardingHandler, type UpstreamDispatch, type UpstreamInterceptor } from "./upstream-dispatch.js";

/** What the response check said of an upstream response (`compute_api.response_check`). */
export type ResponseVerdict = "passed" | "failed" | "not_checked";

/** The hooks of a traced gateway; each one is called only when the gateway traces. */
export interface GatewayTracing {
  /** The request listener, with each request but the gateway's own endpoints (`own`) in a SERVER span. */
  listener(listener: RequestListener, own: (req: IncomingMessage) => unknown): RequestListener;
  /**
   * The interceptor of each upstream attempt (composed onto the pool to `url`): a CLIENT span per attempt, whose
   * traceparent (and tracestate) the backend receives.
   */
  upstream(url: URL): UpstreamInterceptor;
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

/** The CLIENT span of one attempt: ended by its response, its failure, or the resend that replaces it. */
class TracedAttempt extends ForwardingHandler {
  private status = 0;
  private ended = false;

  constructor(
    readonly parent: Context,
    private readonly span: Span,
    private readonly exchange: UpstreamDispatch["exchange"],
    handler: Dispatcher.DispatchHandler,
  ) {
    super(handler);
  }

  /** The attempt failed and is sent again: its span ends as failed, the reason as its `error.type`. */
  resent(reason: RetryReason): void {
    this.ended = true;
    failed(this.span, reason);
  }

  override onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
    message?: string,
  ): void {
    this.status = status;
    super.onResponseStart(controller, status, headers, message);
  }

  override onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    super.onResponseEnd(controller, trailers);
    const { span, status } = this;
    span.setAttribute("http.response.status_code", status);
    if (status >= 400) failed(span, String(status));
    else span.end();
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    // The handlers after this one may send the request again (retry.ts), which ends this span with its reason.
    super.onResponseError(controller, error);
    if (this.ended) return;
    // The span tells what the gateway answers: the failure as the exchange maps it (a 504 at the deadline…).
    const fault = this.exchange.faultOf(error);
    setErrorDetails(this.span, fault);
    failed(this.span, attemptErrorType(fault));
  }
}

/** Creates the hooks of a traced gateway: spans from `tracer`, context through the registered propagator. */
export function gatewayTracing(tracer: Tracer): GatewayTracing {
  /** The SERVER span of each traced request, for the hooks that are given its response. */
  const spans = new WeakMap<ServerResponse, Span>();

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

  function upstream(url: URL): UpstreamInterceptor {
    const address = url.hostname;
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    /** The attempt in progress of each exchange, whose span a resend ends. */
    const attempts = new WeakMap<object, TracedAttempt>();

    /** Starts the CLIENT span of an attempt and writes its traceparent (and tracestate) into the request's headers. */
    const start = (parent: Context, options: UpstreamDispatch, resend: RetryReason | undefined) => {
      const { method, path, route } = options;
      const attributes: Attributes = {
        "server.address": address,
        "server.port": port,
        "http.request.method": spanMethod(method),
        "url.full": url.origin + pathOf(path) + redactedQuery(path),
      };
      if (route !== undefined) attributes["url.template"] = route;
      if (resend) {
        attributes["http.request.resend_count"] = 1;
        attributes[ATTR_RETRY_REASON] = resend;
      }
      const span = tracer.startSpan(httpSpanName(method, route), { kind: SpanKind.CLIENT, attributes }, parent);
      propagation.inject(trace.setSpan(parent, span), options.headers);
      return span;
    };

    return (dispatch) => (options, handler) => {
      const { exchange, resend } = options;
      // A resend continues the attempt it replaces (ending its span first), in that attempt's context: the socket's
      // error that caused it is not the request's. A request that is not sampled gets no span of its own: its
      // traceparent went upstream with its headers.
      const previous = resend ? attempts.get(exchange) : undefined;
      const parent = previous ? previous.parent : resend ? undefined : context.active();
      if (!parent || !trace.getSpan(parent)?.isRecording()) return dispatch(options, handler);
      previous?.resent(resend!.reason);
      const attempt = new TracedAttempt(parent, start(parent, options, resend?.reason), exchange, handler);
      attempts.set(exchange, attempt);
      return dispatch(options, attempt);
    };
  }

  return {
    listener,
    upstream,
    routed(res, operationId, template) {
      const span = spans.get(res);
      if (!span?.isRecording()) return;
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
