/**
 * createGateway: the validating reverse proxy as a node:http request listener, with the spec compiled and the
 * upstream pool open, but not listening. The whole path of a request is `handle` below, in the order it runs.
 */

import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ApiError, compileContract, hasRequestBody, internalError, pathOf, toApiError } from "@compute-api/contract";
import {
  type CorsHandler,
  corsHandler,
  createLogger,
  isPreflight,
  type JsonBody,
  jsonBodyReader,
  requestLogger,
} from "@compute-api/runtime";
import getRawBody from "raw-body";
import { upstreamAcceptEncoding } from "./content-coding.js";
import { type ForwardOptions, forward } from "./forward.js";
import { type GatewayApp, gatewayApp } from "./gateway-app.js";
import { createMetrics, type GatewayMetrics, statusLabel } from "./metrics.js";
import { defaults, type GatewayOptions, parseUpstreamUrl } from "./options.js";
import { ownEndpoints } from "./own-endpoints.js";
import { createRecorder } from "./record.js";
import { createRespond, deliver, sendError } from "./responses.js";
import { createSpecRouteTest } from "./spec-routes.js";
import { isStubAdminTarget, stubAdminRefused } from "./stub-admin.js";
import { normalizeTarget } from "./target.js";
import { gatewayTracing } from "./tracing.js";
import { createUpstream, type UpstreamResponse } from "./upstream.js";
import { tlsProblem } from "./upstream-errors.js";

export type { GatewayApp } from "./gateway-app.js";

/** A built gateway: the request listener to serve, its metrics, and close() for the upstream pool. */
export interface Gateway {
  /** The request listener: `http.createServer(gateway.app)`, or `gateway.app.listen(port, host)`. */
  app: GatewayApp;
  metrics: GatewayMetrics;
  /** Marks the gateway as draining: `/readyz` answers 503 from now on, so that balancers stop sending. */
  drain(): void;
  /** Closes the upstream connections; the caller closes its own server. */
  close(): Promise<void>;
}

/** The declared length of a body, for raw-body to hold the bytes to it (400 when they differ). */
const lengthOf = (req: IncomingMessage): { length?: number } => {
  const length = req.headers["content-length"];
  return length === undefined ? {} : { length: Number(length) };
};

/** Runs a CORS middleware; resolves true when it answered the request itself (a preflight). */
const runCors = (cors: CorsHandler, req: IncomingMessage, res: ServerResponse): boolean => {
  let passed = false;
  cors(req, res, () => {
    passed = true;
  });
  return !passed;
};

/** Builds the gateway; rejects when the upstream URL is not usable or the spec does not compile. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const upstreamUrl = parseUpstreamUrl(options.upstream);
  const mode = options.responseValidation ?? defaults.responseValidation;
  const contract = compileContract(options.spec ? { spec: options.spec } : {});
  const logger = options.logger ?? createLogger({ level: defaults.logLevel });
  const metrics = createMetrics(options.collectDefaultMetrics ?? defaults.collectDefaultMetrics);
  const maxResponseBytes = options.maxResponseBytes ?? defaults.maxResponseBytes;
  const tracing = options.tracer ? gatewayTracing(options.tracer) : undefined;
  const pool = createUpstream(upstreamUrl, {
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxResponseBytes,
    connections: options.connections ?? defaults.connections,
    keepAliveTimeoutMs: options.upstreamKeepAliveTimeoutMs ?? defaults.upstreamKeepAliveTimeoutMs,
  });
  // Traced (a tracer given), each request is a SERVER span and each upstream attempt a CLIENT span (tracing.ts);
  // untraced, nothing of it is on the path of a request.
  const upstream = tracing ? tracing.upstream(pool, upstreamUrl) : pool;
  const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes;
  const readBody = jsonBodyReader({ maxBodyBytes });
  const status = statusLabel(contract.operations.flatMap((operation) => operation.statuses));
  let draining = false;
  const log = requestLogger(logger);
  const cors = options.corsOrigins ? corsHandler(options.corsOrigins, contract.spec) : undefined;
  const isSpecRoute =
    (options.passthroughUnknown ?? defaults.passthroughUnknown) ? createSpecRouteTest(contract.spec) : undefined;
  // Recording (--record): the resources of the answers that pass the check; off, nothing of it is on the path.
  const recorder = options.record === undefined ? undefined : createRecorder({ file: options.record, logger });
  const respond = createRespond({
    mode,
    maxResponseBytes,
    contract,
    metrics,
    logger,
    ownsCors: cors !== undefined,
    checked: tracing?.checked,
    recorded: recorder?.answered,
  });
  const { registry } = metrics;
  const metricsText = options.metricsSource?.(registry) ?? (() => registry.metrics());
  const ownEndpoint = ownEndpoints(upstream, metricsText, registry.contentType, () => draining);

  /** Forwards a request and resolves with what came back; a fault is answered with its status (502, 503, 504). */
  async function exchange(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    operationId: string | undefined,
    options?: ForwardOptions,
  ): Promise<UpstreamResponse | undefined> {
    const onRetry = (reason: string, error: unknown) => {
      metrics.retries.inc({ operation_id: operationId ?? "unknown", reason });
      logger.debug(
        { reqId: id, operationId, reason, err: error },
        "upstream closed a reused connection; sent again on a new one",
      );
    };
    try {
      const response = await forward(upstream, req, res, id, { ...options, onRetry });
      if (response)
        metrics.upstreamSeconds.observe(
          { operation_id: operationId ?? "unknown", status: status(response.status) },
          response.seconds,
        );
      return response;
    } catch (error) {
      const fault = toApiError(error);
      const cause = (error as { cause?: unknown }).cause ?? error;
      logger.error(
        { reqId: id, operationId, err: cause },
        `upstream request failed: ${tlsProblem(cause) ?? fault.message}`,
      );
      tracing?.answered(res, fault);
      sendError(res, fault);
      return undefined;
    }
  }

  /** Answers a request the gateway refuses itself, counted as a request violation. */
  function refuse(res: ServerResponse, error: ApiError, operationId: string | undefined): void {
    if (error.status < 500) metrics.violations.inc({ direction: "request", operation_id: operationId ?? "none" });
    tracing?.answered(res, error);
    sendError(res, error);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    // 1. The gateway's own endpoints: neither logged nor counted, never forwarded.
    const own = ownEndpoint(req);
    if (own) return own(res);
    // 2. One log line per request, with its x-request-id (propagated or new), and every answer counted.
    const record = log(req, res);
    // What an answered request is counted as when no operation was found: forwarded unvalidated, or refused.
    let unvalidated: "preflight" | "unknown" | undefined;
    res.once("close", () => {
      const operationId = record.operationId ?? unvalidated ?? "none";
      metrics.requests.inc({
        operation_id: operationId,
        status: res.writableFinished ? status(res.statusCode) : "aborted",
      });
    });
    // The stub's admin API (/__stub/…) changes a backend's whole state: never forwarded, whatever the flags.
    if (isStubAdminTarget(req.url ?? "/")) return refuse(res, stubAdminRefused(), undefined);
    // 3. CORS: with --cors-origins the gateway answers preflights and sets the headers; without, the backend owns
    //    its CORS policy and preflights go to it unvalidated.
    if (cors && runCors(cors, req, res)) return;
    // 4. Unvalidated: preflights the backend answers, and with --passthrough-unknown what the spec does not describe.
    //    Their target is the one the backend will see (origin-form, no dot segments), so that a target it would
    //    resolve to a spec path is checked as one; their body is read whole, within the limit, before an upstream
    //    connection is taken.
    const preflight = !cors && isPreflight(req);
    if (preflight || isSpecRoute) {
      const target = normalizeTarget(req.url ?? "/");
      if (target instanceof ApiError) return refuse(res, target, undefined);
      req.url = target;
    }
    unvalidated = preflight
      ? "preflight"
      : isSpecRoute && !isSpecRoute(method, pathOf(req.url ?? ""))
        ? "unknown"
        : undefined;
    if (unvalidated) {
      if (unvalidated === "unknown") metrics.passthrough.inc({ method });
      let bytes: Buffer | undefined;
      try {
        bytes = hasRequestBody(req.headers)
          ? await getRawBody(req, { limit: maxBodyBytes, ...lengthOf(req) })
          : undefined;
      } catch (error) {
        return refuse(res, toApiError(error), undefined);
      }
      const response = await exchange(req, res, record.id, undefined, { raw: bytes });
      if (response) deliver(res, response, method, false);
      return;
    }
    // 5. The request, in the stub's order: its JSON body (400, 413, 415), its operation (404, 405), then the
    //    operation's checks (401, 415, 400). The body bytes are read once, under the limit.
    let body: JsonBody;
    try {
      body = await readBody(req, res);
    } catch (error) {
      return refuse(res, toApiError(error), undefined);
    }
    const match = contract.route(method, req.url ?? "/");
    if (match instanceof ApiError) return refuse(res, match, undefined);
    const { operationId } = match.operation;
    record.operationId = operationId;
    tracing?.routed(res, operationId, match.template);
    const problem = contract.checkRequest(match, { url: req.url ?? "/", headers: req.headers, body: body.value });
    if (problem) return refuse(res, problem, operationId);
    // 6. Forward what passed, offering only the content codings the gateway can decode when it checks the response;
    //    answer with the response as the validation mode says.
    const acceptEncoding = mode === "off" ? undefined : upstreamAcceptEncoding(req.headers["accept-encoding"]);
    const response = await exchange(req, res, record.id, operationId, { parsed: body.bytes, acceptEncoding });
    if (response) respond(res, method, record.id, operationId, response);
  }

  const untraced: RequestListener = (req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error, path: req.url }, "request failed");
      sendError(res, internalError());
    });
  };
  const listener = tracing ? tracing.listener(untraced, ownEndpoint) : untraced;
  const app = gatewayApp(listener, options.requestTimeoutMs ?? defaults.requestTimeoutMs);
  const drain = () => {
    draining = true;
  };
  const close = async () => {
    await recorder?.close();
    await upstream.close();
  };
  return { app, metrics, drain, close };
}
