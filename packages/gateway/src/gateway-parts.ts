/**
 * buildGatewayParts: what a gateway is made of, built once from its options before any request — the compiled
 * contract, the upstream pool, the responder, the recorder, the metrics, the request log, CORS and the gateway's own
 * endpoints. Nothing here runs on the path of a request; `handle.ts` does.
 */
import type { IncomingMessage } from "node:http";
import { type Contract, compileContract, type ResponseValidationMode } from "@compute-api/contract";
import {
  type CorsHandler,
  corsHandler,
  createLogger,
  jsonBodyReader,
  type Logger,
  requestLogger,
} from "@compute-api/runtime";
import { createMetrics, type GatewayMetrics, statusLabel } from "./metrics.js";
import { defaults, type GatewayOptions, parseUpstreamUrl } from "./options.js";
import { type Endpoint, ownEndpoints } from "./own-endpoints.js";
import { createRecorder, type Recorder } from "./record.js";
import { createRespond, type Respond } from "./responses.js";
import { createSpecRouteTest } from "./spec-routes.js";
import { type GatewayTracing, gatewayTracing } from "./tracing.js";
import { createUpstream, type Upstream } from "./upstream.js";
import { countResends, timeExchanges } from "./upstream-metrics.js";

/** The parts of a gateway: each built once, used by every request. */
export interface GatewayParts {
  mode: ResponseValidationMode;
  contract: Contract;
  logger: Logger;
  metrics: GatewayMetrics;
  /** The `status` label of a status (metrics.ts). */
  status: (status: number) => string;
  /** What a traced gateway attaches around the handler and each upstream attempt, when it is given a tracer. */
  tracing: GatewayTracing | undefined;
  /** The backend: an undici pool, with the interceptors of the retry, the metrics and (traced) the spans. */
  upstream: Upstream;
  maxBodyBytes: number;
  /** Reads a JSON request body once, under the limit. */
  readBody: ReturnType<typeof jsonBodyReader>;
  /** Starts the log record of a request, whose line is written when its response closes. */
  log: ReturnType<typeof requestLogger>;
  /** With --cors-origins: the gateway answers CORS itself. */
  cors: CorsHandler | undefined;
  /** With --passthrough-unknown: whether a method and path belong to the spec. */
  isSpecRoute: ((method: string, path: string) => boolean) | undefined;
  /** The recording (--record), when there is one. */
  recorder: Recorder | undefined;
  /** Answers a request with its upstream response, as the validation mode says. */
  respond: Respond;
  /** The gateway's own endpoint a request is for (`/healthz`, `/readyz`, `/metrics`), if any. */
  ownEndpoint: (req: IncomingMessage) => Endpoint | undefined;
  /** Marks the gateway as draining: `/readyz` answers 503 from then on. */
  drain(): void;
}

/** Builds the parts; throws when the upstream URL is not usable or the spec does not compile. */
export function buildGatewayParts(options: GatewayOptions): GatewayParts {
  const upstreamUrl = parseUpstreamUrl(options.upstream);
  const mode = options.responseValidation ?? defaults.responseValidation;
  const contract = compileContract(options.spec ? { spec: options.spec } : {});
  const logger = options.logger ?? createLogger({ level: defaults.logLevel });
  const metrics = createMetrics(options.collectDefaultMetrics ?? defaults.collectDefaultMetrics);
  const maxResponseBytes = options.maxResponseBytes ?? defaults.maxResponseBytes;
  const tracing = options.tracer ? gatewayTracing(options.tracer) : undefined;
  const status = statusLabel(contract.operations.flatMap((operation) => operation.statuses));
  const upstream = createUpstream(
    upstreamUrl,
    {
      timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
      maxResponseBytes,
      connections: options.connections ?? defaults.connections,
      keepAliveTimeoutMs: options.upstreamKeepAliveTimeoutMs ?? defaults.upstreamKeepAliveTimeoutMs,
    },
    {
      // Traced (a tracer given), each attempt is a CLIENT span (tracing.ts); untraced, nothing of it is on the path.
      attempt: tracing ? [tracing.upstream(upstreamUrl)] : [],
      resend: [countResends(metrics, logger)],
      exchange: [timeExchanges(metrics, status)],
    },
  );
  const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes;
  const readBody = jsonBodyReader({ maxBodyBytes });
  let draining = false;
  const log = requestLogger(logger);
  const cors = options.corsOrigins ? corsHandler(options.corsOrigins, contract.spec) : undefined;
  const isSpecRoute =
    (options.passthroughUnknown ?? defaults.passthroughUnknown) ? createSpecRouteTest(contract.spec) : undefined;
  // Recording (--record): the resources of the answers that pass the check; started (the file taken) by createGateway.
  const recorder =
    options.record === undefined
      ? undefined
      : createRecorder({ file: options.record, logger, spec: contract.spec, keys: options.recordKeys ?? false });
  const respond = createRespond({ mode, maxResponseBytes, contract, logger, ownsCors: cors !== undefined });
  const { registry } = metrics;
  const metricsText = options.metricsSource?.(registry) ?? (() => registry.metrics());
  const ownEndpoint = ownEndpoints(upstream, metricsText, registry.contentType, () => draining);
  return {
    mode,
    contract,
    logger,
    metrics,
    status,
    tracing,
    upstream,
    maxBodyBytes,
    readBody,
    log,
    cors,
    isSpecRoute,
    recorder,
    respond,
    ownEndpoint,
    drain: () => {
      draining = true;
    },
  };
}
