/**
 * The gateway's Prometheus metrics (prom-client), in a registry of its own so that several gateways can share a
 * process, and the wrapper of the handler that counts each request from its notes. The upstream's are taken by
 * interceptors (upstream-metrics.ts).
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { HandlerWrapper } from "./request-notes.js";

/** The metrics a gateway records. */
export interface GatewayMetrics {
  registry: Registry;
  /** Requests answered, by operationId (`preflight` and `unknown` (passthrough) for those forwarded unvalidated, `none` for no operation) and status. */
  requests: Counter<"operation_id" | "status">;
  /** Requests and responses that broke the contract, by direction (`request`, `response`) and operationId. */
  violations: Counter<"direction" | "operation_id">;
  /** Time from sending a request upstream to the last byte of its response. */
  upstreamSeconds: Histogram<"operation_id" | "status">;
  /** Requests to paths or methods the spec does not know, forwarded unvalidated (`--passthrough-unknown`). */
  passthrough: Counter<"method">;
  /** Requests sent again on a new connection after the backend closed a reused one under them. */
  retries: Counter<"operation_id" | "reason">;
}

/** The statuses the gateway answers itself (204 to a CORS preflight), whether or not the spec documents them. */
const ownStatuses = [204, 400, 404, 405, 413, 415, 500, 502, 503, 504];

/**
 * The `status` label of a response, from a bounded set whatever the backend answers: a status the spec documents
 * (or the gateway answers itself) keeps its number, any other becomes its class (`2xx`…`5xx`), or `other`.
 */
export function statusLabel(documented: Iterable<string>): (status: number) => string {
  const known = new Set(ownStatuses.map(String));
  for (const status of documented) if (/^[1-5]\d\d$/.test(status)) known.add(status);
  return (status) => {
    const text = String(status);
    if (known.has(text)) return text;
    return status >= 100 && status <= 599 ? `${text[0]}xx` : "other";
  };
}

/** Creates the registry and its metrics; `processMetrics` adds prom-client's CPU, memory and event-loop metrics. */
export function createMetrics(processMetrics = false): GatewayMetrics {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: "gateway_requests_total",
      help: "Requests answered by the gateway, by operationId and HTTP status",
      labelNames: ["operation_id", "status"],
      registers: [registry],
    }),
    violations: new Counter({
      name: "gateway_contract_violations_total",
      help: "Requests (refused) and upstream responses that broke the contract, by direction and operationId",
      labelNames: ["direction", "operation_id"],
      registers: [registry],
    }),
    upstreamSeconds: new Histogram({
      name: "gateway_upstream_duration_seconds",
      help: "Time from sending a request upstream to the last byte of its response",
      labelNames: ["operation_id", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    passthrough: new Counter({
      name: "gateway_passthrough_requests_total",
      help: "Requests to paths or methods outside the spec, forwarded unvalidated",
      labelNames: ["method"],
      registers: [registry],
    }),
    retries: new Counter({
      name: "gateway_upstream_retries_total",
      help: "Requests sent again on a new connection after the backend closed or reset a reused one before answering",
      labelNames: ["operation_id", "reason"],
      registers: [registry],
    }),
  };
}

/**
 * The wrapper of the handler that counts each request when its response closes, from what its notes say: the
 * answer (`gateway_requests_total`; `aborted` when the caller went away before it), a refusal of the gateway's own
 * and a response that broke the contract (`gateway_contract_violations_total`), a request outside the spec that
 * was forwarded (`gateway_passthrough_requests_total`).
 */
export function countRequests(metrics: GatewayMetrics, status: (status: number) => string): HandlerWrapper {
  const { requests, violations, passthrough } = metrics;
  return (handler) => (req, res, notes) => {
    // A response closes once: `on` spares the wrapper `once` would allocate per request.
    res.on("close", () => {
      const { record, unvalidated, error } = notes;
      requests.inc({
        operation_id: record.operationId ?? unvalidated ?? "none",
        status: res.writableFinished ? status(res.statusCode) : "aborted",
      });
      if (unvalidated === "unknown") passthrough.inc({ method: req.method ?? "GET" });
      if (error && error.status < 500)
        violations.inc({ direction: "request", operation_id: record.operationId ?? "none" });
      if (notes.violations > 0) violations.inc({ direction: "response", operation_id: record.operationId ?? "none" });
    });
    return handler(req, res, notes);
  };
}
