/**
 * createGateway: the validating reverse proxy as a node:http request listener, with the spec compiled and the
 * upstream pool open, but not listening. Its parts are built once (gateway-parts.ts); the path of a request is
 * `handle` (handle.ts), in the order it runs.
 */

import type { RequestListener } from "node:http";
import { internalError } from "@compute-api/contract";
import { type GatewayApp, gatewayApp } from "./gateway-app.js";
import { buildGatewayParts } from "./gateway-parts.js";
import { createHandle } from "./handle.js";
import type { GatewayMetrics } from "./metrics.js";
import { defaults, type GatewayOptions } from "./options.js";
import { sendError } from "./responses.js";

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

/** Builds the gateway; rejects when the upstream URL is not usable or the spec does not compile. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const parts = buildGatewayParts(options);
  const { logger, tracing, recorder, upstream } = parts;
  const handle = createHandle(parts);
  const untraced: RequestListener = (req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error, path: req.url }, "request failed");
      sendError(res, internalError());
    });
  };
  const listener = tracing ? tracing.listener(untraced, parts.ownEndpoint) : untraced;
  const app = gatewayApp(listener, options.requestTimeoutMs ?? defaults.requestTimeoutMs);
  const close = async () => {
    await recorder?.close();
    await upstream.close();
  };
  return { app, metrics: parts.metrics, drain: parts.drain, close };
}
