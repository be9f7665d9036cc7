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
import { ApiError, bearerToken, type OpenApiDocument, searchOf, unauthenticated } from "@compute-api/contract";
import type { Forwarder } from "@compute-api/gateway";
import type { Logger, RequestRecord } from "@compute-api/runtime";
import type { Request, RequestHandler } from "express";
import { type JournalRecorder, queryOf } from "./journal-http.js";
import type { Store, User } from "./store/store.js";
import type { StubbedAnswers } from "./stubbed-answers.js";

/** Where the stub forwards what it does not answer, and whether that traffic is recorded. */
export interface ForwardOptions {
  /** Base URL of the real backend, such as `https://compute.internal` (without /v1). */
  url: string;
  /** Records the forwarded answers into this fixture file (`.yaml`), which `compute-stub --data` serves. */
  record?: string | undefined;
  /** With `record`: each caller's key as a user who sees what its answers showed, the key as SHA-256 only. */
  recordKeys?: boolean | undefined;
}

/**
 * Forwarding, started: the middleware to mount before validation (after the journal's recorder and the request's
 * session), what authentication and the stubbed answers ask of it, and its close.
 */
export interface Forwarding {
  middleware: RequestHandler;
  /**
   * The user of a key the store does not know on a request kept from the backend for a stubbed answer: one who may
   * see and do nothing (an operation never runs for it: see `unanswered`); undefined for any other request.
   */
  keyForAnswers(req: IncomingMessage): User | undefined;
  /** After the stubbed answers: refuses (401) a request kept for an answer that did not match, whose key is unknown. */
  unanswered: RequestHandler;
  /** Writes the recording a last time (rejects when that write failed) and closes the backend connections. */
  close(): Promise<void>;
}

/** What forwarding reads of the stub. */
export interface ForwardingParts {
  /** The store of a request: its test session's (`X-Stub-Session`), or the stub's own. */
  storeOf(req: IncomingMessage): Store;
  /** The stubbed answers a request may get: its session's, or the stub's own (none without the admin API). */
  answersOf(req: IncomingMessage): StubbedAnswers | undefined;
  spec: OpenApiDocument;
  logger: Logger;
  recorder: JournalRecorder | undefined;
}

/** Not answered here: the user the forwarded request acts for, if any, and the operation it was routed to. */
type Elsewhere = { user?: User; operationId?: string };

/** Whether the stub answers a request itself (see above); otherwise the user the forwarded request acts for, if any. */
function answeredHere(forwarder: Forwarder, store: Store, req: IncomingMessage): true | Elsewhere {
  const match = forwarder.route(req.method ?? "GET", req.url ?? "/");
  if (match instanceof ApiError) return match.status === 404 || match.status === 405 ? {} : true;
  const token = bearerToken(req);
  if (token === undefined) return true;
  const { operationId } = match.operation;
  const user = store.authenticate(token);
  if (!user) return { operationId };
  if (operationId !== "updateClusterMachine") return true;
  const { projectId = "", id = "" } = match.params;
  return store.holdsClusterMachine(projectId, id) ? true : { user, operationId };
}

/** The user of an unknown key on a request kept for a stubbed answer: no project, no access, no right. */
const nobody: User = Object.freeze({
  id: "",
  projectIds: new Set<string>(),
  access: new Set<string>(),
  canCreateApiKeys: false,
  canSearch: false,
  keys: new Map(),
});

/**
 * Whether a stubbed answer may take a request the stub would forward (WireMock matches its mappings before it
 * proxies): one that matches it in all but the body, which is read after validation, then matched whole.
 */
function mayBeAnswered(req: Request, operationId: string | undefined, answers: StubbedAnswers | undefined): boolean {
  if (operationId === undefined || answers === undefined) return false;
  const view = { method: req.method, path: req.path, query: queryOf(searchOf(req.originalUrl)), headers: req.headers };
  return answers.mayAnswer({ ...view, operationId });
}

/** Starts forwarding to `options.url`; rejects as the gateway does (a URL it cannot use, a recording refused). */
export async function startForwarding(options: ForwardOptions, parts: ForwardingParts): Promise<Forwarding> {
  const { storeOf, answersOf, spec, logger, recorder } = parts;
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
  // The requests kept from the backend for a stubbed answer, and those of them whose key the store does not know.
  const keptForAnswers = new WeakSet<IncomingMessage>();
  const unknownKeys = new WeakSet<IncomingMessage>();
  const middleware: RequestHandler = (req, res, next) => {
    const here = answeredHere(forwarder, storeOf(req), req);
    if (here === true) return next();
    if (mayBeAnswered(req, here.operationId, answersOf(req))) {
      keptForAnswers.add(req);
      return next();
    }
    const record = (res.locals as { record: RequestRecord }).record;
    // The journal and the request's log line read it (and the operationId the gateway's routing writes).
    record.fields.forwarded = true;
    if (here.user) recorder?.noteUser(req, here.user.id);
    forwarder.forward(req, res, record).catch(next);
  };
  const keyForAnswers = (req: IncomingMessage) => {
    if (!keptForAnswers.has(req)) return undefined;
    unknownKeys.add(req);
    return nobody;
  };
  const unanswered: RequestHandler = (req, _res, next) =>
    next(unknownKeys.has(req) ? unauthenticated("the API key is not valid") : undefined);
  return { middleware, keyForAnswers, unanswered, close: () => forwarder.close() };
}
