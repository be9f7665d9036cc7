/**
 * Forwarding (`--forward <url>`, WireMock's and Mockoon's proxy mode): what the stub does not answer goes to a real
 * backend through the gateway's request path (@compute-api/gateway's createForwarder: the request checked against
 * the spec before it leaves, 400 without reaching the backend; the answer checked on its way back, 502 with the
 * error body when the spec does not allow it; 502, 503 or 504 when the backend fails), so that a team mixes
 * stubbed and real answers. The stub answers a request itself when its data holds what it is about:
 * - a request without a well-formed bearer key: the stub answers 401, as the gateway would;
 * - a key the stub does not know: forwarded (the backend's user), never refused;
 * - a stub user's PATCH of a cluster machine the data does not hold (by project and id): forwarded;
 * - a stub user's search and createApiKey: answered by the stub. A search is over everything the caller may see,
 *   which the stub's data holds whole for its own users (an empty list is an answer, not a miss), and a stub user's
 *   key means nothing to the backend; merging two ranked lists would break their order and their limit;
 * - a path or method the spec does not describe: forwarded unvalidated, as the gateway's `--passthrough-unknown`
 *   does (the real service has operations the spec does not show). The stub's own paths (`/__stub/`, `/healthz`,
 *   `/docs`, …) are answered before, and the gateway never forwards `/__stub/`.
 * Forwarded requests get none of the stub's faults, are journaled like every request (`forwarded: true`) and have
 * one log line, the stub's. With `record`, the forwarded answers are recorded as `compute-gateway --record` does;
 * with `recordKeys`, the callers' keys too, as SHA-256 only.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, bearerToken, type OpenApiDocument } from "@compute-api/contract";
import type { Forwarder } from "@compute-api/gateway";
import type { Logger, RequestRecord } from "@compute-api/runtime";
import type { RequestHandler } from "express";
import type { JournalRecorder } from "./journal-http.js";
import type { Store, User } from "./store/store.js";

/** Where the stub forwards what it does not answer, and whether that traffic is recorded. */
export interface ForwardOptions {
  /** Base URL of the real backend, such as `https://compute.internal` (without /v1). */
  url: string;
  /** Records the forwarded answers into this fixture file (`.yaml`), which `compute-stub --data` serves. */
  record?: string | undefined;
  /** With `record`: each caller's key as a user who sees what its answers showed, the key as SHA-256 only. */
  recordKeys?: boolean | undefined;
}

/** Forwarding, started: the middleware to mount before validation (after the journal's recorder) and its close. */
export interface Forwarding {
  middleware: RequestHandler;
  /** Writes the recording a last time (rejects when that write failed) and closes the backend connections. */
  close(): Promise<void>;
}

/** What forwarding reads of the stub. */
export interface ForwardingParts {
  store: Store;
  spec: OpenApiDocument;
  logger: Logger;
  recorder: JournalRecorder | undefined;
}

/** Whether the stub answers a request itself (see above); otherwise the user the forwarded request acts for, if any. */
function answeredHere(forwarder: Forwarder, store: Store, req: IncomingMessage): true | { user?: User } {
  const match = forwarder.route(req.method ?? "GET", req.url ?? "/");
  if (match instanceof ApiError) return match.status === 404 || match.status === 405 ? {} : true;
  const token = bearerToken(req);
  if (token === undefined) return true;
  const user = store.authenticate(token);
  if (!user) return {};
  if (match.operation.operationId !== "updateClusterMachine") return true;
  const { projectId = "", id = "" } = match.params;
  return store.holdsClusterMachine(projectId, id) ? true : { user };
}

/** Starts forwarding to `options.url`; rejects as the gateway does (a URL it cannot use, a recording refused). */
export async function startForwarding(options: ForwardOptions, parts: ForwardingParts): Promise<Forwarding> {
  const { store, spec, logger, recorder } = parts;
  // Loaded only when forwarding is asked for: a stub without it never loads the gateway's proxy.
  const { createForwarder } = await import("@compute-api/gateway");
  const forwarder = await createForwarder({
    upstream: options.url,
    passthroughUnknown: true,
    spec,
    logger,
    ...(options.record === undefined ? {} : { record: options.record, recordKeys: options.recordKeys === true }),
  });
  logger.info({ forward: options.url }, `what the stub's data does not hold is forwarded to ${options.url}`);
  const middleware: RequestHandler = (req, res, next) => {
    const here = answeredHere(forwarder, store, req);
    if (here === true) return next();
    const record = (res.locals as { record: RequestRecord }).record;
    // The journal and the request's log line read it (and the operationId the gateway's routing writes).
    record.fields.forwarded = true;
    if (here.user) recorder?.noteUser(req, here.user.id);
    forwarder.forward(req, res, record).catch(next);
  };
  return { middleware, close: () => forwarder.close() };
}
