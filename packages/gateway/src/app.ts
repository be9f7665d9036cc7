/** createGateway: the validating reverse proxy as an express app, built and warmed up but not listening. */
import {
  createContractValidator,
  createLogger,
  createResponseCheck,
  errorHandler,
  loadSpec,
  requestLogger,
} from "@compute-api/contract";
import express, { type Express, type RequestHandler } from "express";
import type { GatewayContext } from "./context.js";
import { operationIdOf } from "./context.js";
import { forwardUnknown, forwardValidated } from "./forward.js";
import { createMetrics, type GatewayMetrics } from "./metrics.js";
import { operationsRouter } from "./operations.js";
import { defaults, parseUpstreamUrl, type GatewayOptions } from "./options.js";
import { sendUpstreamBytes, upstreamErrors } from "./responses.js";
import { createSpecRouteTest } from "./spec-routes.js";
import { createUpstream } from "./upstream.js";

/** A built gateway: the app to serve, its metrics, and close() for the upstream pool. */
export interface Gateway {
  app: Express;
  metrics: GatewayMetrics;
  /** Closes the upstream connections; the caller closes its own server. */
  close(): Promise<void>;
}

/** Counts every answered request by operationId and status once its response is done. */
function countRequests(ctx: GatewayContext): RequestHandler {
  return (req, res, next) => {
    res.once("close", () => {
      const operationId = operationIdOf(req) ?? (ctx.forwarded.has(res) ? "unknown" : "none");
      ctx.metrics.requests.inc({ operation_id: operationId, status: res.writableFinished ? String(res.statusCode) : "aborted" });
    });
    next();
  };
}

/** Builds the gateway; rejects when the upstream URL is not usable or the spec does not compile. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const upstreamUrl = parseUpstreamUrl(options.upstream);
  const spec = options.spec ?? loadSpec();
  const validate = options.validate ?? true;
  const responseValidation = validate ? (options.responseValidation ?? defaults.responseValidation) : "off";
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
  const logger = options.logger ?? createLogger();
  const ctx: GatewayContext = {
    upstream: createUpstream(upstreamUrl, {
      timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? defaults.maxResponseBytes,
      connections: options.connections ?? defaults.connections,
    }),
    metrics: createMetrics(options.collectDefaultMetrics),
    responseValidation,
    checkResponse: createResponseCheck(spec),
    rawBodies: new WeakMap(),
    pending: new WeakMap(),
    forwarded: new WeakSet(),
  };
  // The gateway decides what a violation leads to, so the validator always reports it as an error.
  const validator = validate
    ? createContractValidator({
        spec,
        responses: responseValidation === "off" ? "off" : "enforce",
        ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
        onRawBody: (req, body) => ctx.rawBodies.set(req, body),
      })
    : undefined;
  try {
    await validator?.warmUp();
  } catch (error) {
    await ctx.upstream.close();
    throw error;
  }

  const app = express();
  app.disable("x-powered-by");
  // 1. The gateway's own endpoints: neither logged nor counted, never forwarded.
  const { registry } = ctx.metrics;
  app.use(operationsRouter(ctx, options.metricsSource?.(registry) ?? (() => registry.metrics())));
  // 2. One log line per request, with its x-request-id (propagated or new); Authorization is redacted.
  app.use(requestLogger(logger));
  // 3. Every answer counted by operationId and status.
  app.use(countRequests(ctx));
  // 4. With --passthrough-unknown, what the spec does not describe goes upstream unvalidated.
  if (options.passthroughUnknown) app.use(forwardUnknown(ctx, createSpecRouteTest(spec)));
  if (validator) {
    // 5. Before the validator, so that its response check sends the upstream bytes rather than re-serializing.
    app.use(sendUpstreamBytes(ctx));
    // 6. The contract's body parser (keeping the raw bytes) and express-openapi-validator.
    app.use(validator.middleware);
  }
  // 7. Forward what passed, answer with what came back.
  app.use(forwardValidated(ctx));
  // 8. Response violations by mode, request violations counted; then the one error body.
  app.use(upstreamErrors(ctx));
  app.use(errorHandler(logger));

  return { app, metrics: ctx.metrics, close: () => ctx.upstream.close() };
}
