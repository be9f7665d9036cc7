/** The gateway's Prometheus metrics (prom-client), in a registry of its own so that several gateways can share a process. */
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

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
  };
}
