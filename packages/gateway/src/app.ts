/**
 * createGateway: the validating reverse proxy as a node:http request listener, with the spec compiled and the
 * upstream pool open, but not listening. Its parts are built once (gateway-parts.ts); a request is answered by the
 * gateway's own endpoints, or else by the handler (handle.ts) with the concerns that observe it wrapped around it,
 * as undici composes interceptors around a dispatch: the metrics, the traces (when traced), the recording (with
 * --record). Without a tracer or a recording, nothing of either is on the path of a request.
 */

import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { internalError } from "@compute-api/contract";
import { type GatewayApp, gatewayApp } from "./gateway-app.js";
import { buildGatewayParts, type GatewayParts } from "./gateway-parts.js";
import { createHandle } from "./handle.js";
import { countRequests, type GatewayMetrics } from "./metrics.js";
import { defaults, type GatewayOptions } from "./options.js";
import type { Endpoint } from "./own-endpoints.js";
import { recordAnswers } from "./record.js";
import { type Handler, type HandlerWrapper, RequestNotes } from "./request-notes.js";
import { sendError } from "./responses.js";

export type { GatewayApp } from "./gateway-app.js";

/** A built gateway: the request listener to serve, its metrics, and close() for the upstream pool. */
export interface Gateway {
  /** The request listener: `http.createServer(gateway.app)`, or `gateway.app.listen(port, host)`. */
  app: GatewayApp;
  metrics: GatewayMetrics;
  /** Marks the gateway as draining: `/readyz` answers 503 from now on, so that balancers stop sending. */
  drain(): void;
  /**
   * Closes the upstream connections and writes the recording a last time; the caller closes its own server. Rejects
   * when that write failed.
   */
  close(): Promise<void>;
}

/** An own endpoint's answer, whose failure (a throw as well as a rejection) the caller is given. */
const answerOwn = async (endpoint: Endpoint, res: ServerResponse): Promise<void> => endpoint(res);

/** A gateway's request path, built and started: its parts, the handler of a request, and what closes them. */
export interface GatewayPath {
  parts: GatewayParts;
  /** Checks, forwards and answers a request (every one but those of the own endpoints), with the concerns around it. */
  handler: Handler;
  /** A request whose handling failed: 500 with the error body, the error logged. */
  failed(req: IncomingMessage, res: ServerResponse, error: unknown): void;
  /** Writes the recording a last time (rejects when that write failed), then closes the upstream pool. */
  close(): Promise<void>;
}

/**
 * Builds the parts and the handler, and starts the recording; rejects when the upstream URL is not usable, the spec
 * does not compile, or the recording cannot be written (a RecordingRefused). createGateway serves it; a server of
 * its own (the stub's --forward, createForwarder) hands it the requests it does not answer itself.
 */
export async function startGatewayPath(options: GatewayOptions): Promise<GatewayPath> {
  const parts = buildGatewayParts(options);
  const { logger, metrics, tracing, recorder, upstream } = parts;
  try {
    await recorder?.start();
  } catch (error) {
    await upstream.close();
    throw error;
  }
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    logger.error({ err: error, path: req.url }, "request failed");
    sendError(res, internalError());
  };
  const answerFailures: HandlerWrapper = (handler) => (req, res, notes) =>
    handler(req, res, notes).catch((error: unknown) => failed(req, res, error));
  // Around the handler, innermost first: the recording, the answer to a failure, the metrics, the traces (outermost,
  // so that the others run in the request's span).
  const wrappers = [recorder && recordAnswers(recorder), answerFailures, countRequests(metrics, parts.status)];
  if (tracing) wrappers.push(tracing.requests);
  const handler = wrappers.reduce<Handler>((inner, wrap) => (wrap ? wrap(inner) : inner), createHandle(parts));
  // A recording whose last write failed rejects, after the upstream pool is closed too.
  const close = async () => {
    try {
      await recorder?.close();
    } finally {
      await upstream.close();
    }
  };
  return { parts, handler, failed, close };
}

/**
 * Builds the gateway; rejects when the upstream URL is not usable, the spec does not compile, or the recording
 * (`record`) cannot be written or has another writer (a RecordingRefused).
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { parts, handler, failed, close } = await startGatewayPath(options);
  const { log, metrics } = parts;

  const listener: RequestListener = (req, res) => {
    // The gateway's own endpoints: neither logged, counted nor traced; never forwarded.
    const own = parts.ownEndpoint(req);
    if (own) return void answerOwn(own, res).catch((error: unknown) => failed(req, res, error));
    // Every other request: one log line, with its x-request-id (propagated or new), written when its response closes.
    void handler(req, res, new RequestNotes(log(req, res)));
  };
  const app = gatewayApp(listener, options.requestTimeoutMs ?? defaults.requestTimeoutMs);
  return { app, metrics, drain: parts.drain, close };
}
