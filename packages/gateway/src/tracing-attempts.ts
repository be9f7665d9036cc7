/**
 * The CLIENT span of each upstream attempt, as an undici interceptor composed onto the pool (upstream.ts): under the
 * request's SERVER span, named after its route, its traceparent (and tracestate) written into the request's headers
 * for the backend. A resend is a span of its own, after the failed one. Composed only when the gateway traces.
 */
import type { IncomingHttpHeaders } from "node:http";
import { clientClosedErrorType, httpSpanName, setErrorDetails, spanMethod } from "@compute-api/runtime/tracing";
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

/** The interceptor of each attempt to the backend at `url`: a CLIENT span from `tracer` per attempt. */
export function tracedAttempts(tracer: Tracer, url: URL): UpstreamInterceptor {
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
