/**
 * The metrics of the requests to the backend, as undici interceptors composed onto the pool (upstream.ts): the time
 * of each exchange, and each resend counted and logged.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Logger } from "@compute-api/runtime";
import type { Dispatcher } from "undici";
import type { GatewayMetrics } from "./metrics.js";
import { ForwardingHandler, type UpstreamInterceptor } from "./upstream-dispatch.js";

/** Times an exchange, from its dispatch to the last byte of its response, into the histogram. */
class TimedExchange extends ForwardingHandler {
  private readonly started = performance.now();

  constructor(
    private readonly histogram: GatewayMetrics["upstreamSeconds"],
    private readonly statusLabel: (status: number) => string,
    private readonly operationId: string,
    handler: Dispatcher.DispatchHandler,
  ) {
    super(handler);
  }

  override onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    const seconds = (performance.now() - this.started) / 1000;
    this.histogram.observe({ operation_id: this.operationId, status: this.statusLabel(this.status) }, seconds);
    super.onResponseEnd(controller, trailers);
  }
}

/**
 * The interceptor of a whole exchange (a resend included) that observes `gateway_upstream_duration_seconds` when a
 * response has come back whole, by operation (`unknown` for a request forwarded unvalidated) and status label.
 */
export function timeExchanges(metrics: GatewayMetrics, statusLabel: (status: number) => string): UpstreamInterceptor {
  return (dispatch) => (options, handler) =>
    dispatch(
      options,
      new TimedExchange(metrics.upstreamSeconds, statusLabel, options.operationId ?? "unknown", handler),
    );
}

/** The interceptor of resends that counts each in `gateway_upstream_retries_total` and logs it at debug. */
export function countResends(metrics: GatewayMetrics, logger: Logger): UpstreamInterceptor {
  return (dispatch) => (options, handler) => {
    const { operationId, resend } = options;
    if (resend) {
      metrics.retries.inc({ operation_id: operationId ?? "unknown", reason: resend.reason });
      logger.debug(
        { reqId: options.headers["x-request-id"], operationId, reason: resend.reason, err: resend.error },
        "upstream closed a reused connection; sent again on a new one",
      );
    }
    return dispatch(options, handler);
  };
}
