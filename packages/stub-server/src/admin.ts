/**
 * The stub's admin API, under `/__stub/` (outside the spec's paths, which the gateway never forwards): the state
 * (reset, snapshot, restore, load), the request journal and the fault settings, for tests that drive the stub over
 * HTTP (WireMock's `/__admin`); with `X-Stub-Session`, those of that test session (admin-sessions.ts). JSON in and
 * out; every failure is the interface's error body. No web page may drive
 * it (admin-guard.ts: Host, Origin, no preflight, JSON writes only). With a token, every admin request must carry
 * `Authorization: Bearer <token>`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  bearerToken,
  hasRequestBody,
  invalidRequest,
  methodNotAllowed,
  missingRequestBody,
  notFound,
  type OpenApiDocument,
  unauthenticated,
  unsupportedMediaType,
} from "@compute-api/contract";
import { jsonBodyReader } from "@compute-api/runtime";
import { signalOf } from "@compute-api/server";
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import { answerRoutes, findRoute } from "./admin-answers.js";
import { filterOf } from "./admin-checks.js";
import { changeFaults, faultSettingsOf } from "./admin-faults.js";
import { type AdminGuardOptions, adminGuard } from "./admin-guard.js";
import { adminPrefix } from "./admin-prefix.js";
import { type AdminSessions, type AdminTarget, routesOfRequest, sessionsEndpoint } from "./admin-sessions.js";
import { maxLoadGenerate, stateRoutes } from "./admin-state.js";
import { documentedStatuses } from "./fault-scenarios.js";
import type { FaultControl, FaultOptions, Faults } from "./faults.js";
import type { Journal } from "./journal.js";
import type { Store } from "./store/store.js";
import type { StubbedAnswers } from "./stubbed-answers.js";

export { adminPrefix } from "./admin-prefix.js";

/** The largest body of restore and load, in bytes: a snapshot of a large data set (256 MiB). */
export const maxAdminBodyBytes = 256 * 1024 * 1024;

/** What the admin API works on. */
export interface AdminOptions {
  store: Store;
  journal: Journal;
  faults: Faults;
  spec: OpenApiDocument;
  /** When set, every admin request must send `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** Where the stub listens and which origins its CORS allows: what the guard against web pages checks. */
  guard: AdminGuardOptions;
  /** The stubbed answers (`/__stub/answers`). */
  answers: StubbedAnswers;
  /** The test sessions: a request with `X-Stub-Session` works on its session's state, journal, faults and answers. */
  sessions?: AdminSessions | undefined;
}

/** The endpoints, as `GET /__stub/` lists them. */
export const adminEndpoints = [
  ["GET", "/__stub/", "this list"],
  ["POST", "/__stub/reset", "back to the data the stub started with (or last loaded), with its start keys"],
  ["GET", "/__stub/snapshot", "the whole state as a fixture file, what --data reads (keys as SHA-256 only)"],
  ["POST", "/__stub/restore", "replace the state with a fixture file (the body), such as a snapshot"],
  [
    "POST",
    "/__stub/load",
    `replace the state and make it what reset goes back to: {"data": {…}}, {"generate": N, "seed": S} (N at most ${maxLoadGenerate}) or {"builtin": true}`,
  ],
  [
    "GET",
    "/__stub/requests",
    "the journal of answered requests, oldest first; filters: method, path (* wildcard), operationId, status (404, 4xx), since (a seq or an ISO time), limit",
  ],
  [
    "POST",
    "/__stub/requests/find",
    "the journal through a filter: those of GET and query, headers, a partial body; with the near misses",
  ],
  ["DELETE", "/__stub/requests", "empty the journal"],
  ["GET", "/__stub/faults", "the fault settings in force, in the flags' syntax"],
  [
    "PATCH",
    "/__stub/faults",
    'change some: {"faults": "503=10%", "latency": "20-200", "drop": "1%", "rateLimit": "5/s", "prefer": false, "seed": 7, "retryAfter": 0, "scenarios": {"searchResources": [{"status": 503, "times": 2}]}}; null turns one off',
  ],
  ["DELETE", "/__stub/faults", "back to the fault settings the stub started with"],
  ["GET", "/__stub/answers", "the stubbed answers, in the order they are tried"],
  [
    "POST",
    "/__stub/answers",
    'set one, checked against the spec: {"request": {"operationId": …, "query": …, "body": …}, "answer": {"status", "headers", "body"}, "priority": 5}',
  ],
  ["DELETE", "/__stub/answers", "remove every stubbed answer"],
  ["DELETE", "/__stub/answers/{id}", "remove one"],
  ["GET", "/__stub/sessions", "the test sessions (X-Stub-Session: <id> on any request works on that session alone)"],
  ["DELETE", "/__stub/sessions", "end the session X-Stub-Session names, or without it every session"],
] as const;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** An admin endpoint's handlers by method. */
type Endpoint = Partial<Record<string, (req: Request, res: Response) => unknown>>;

/** The JSON body an admin request must carry. */
type RequiredBody = (req: Request, res: Response) => Promise<unknown>;

/** The admin router, to mount before the spec's validation (it answers only under /__stub). */
export function adminRoutes({ store, journal, faults, spec, token, guard, answers, sessions }: AdminOptions): Router {
  const readBody = jsonBodyReader({ maxBodyBytes: maxAdminBodyBytes });
  /** The JSON body of an admin request (400, 413, 415 as the API's own); one is required. */
  const body: RequiredBody = async (req, res) => {
    const { value } = await readBody(req, res);
    if (value === undefined)
      throw hasRequestBody(req.headers) ? unsupportedMediaType() : invalidRequest([missingRequestBody]);
    return value;
  };
  const shared = new Map<string, Endpoint>([
    [
      "/",
      {
        GET: (_req, res) =>
          res.json({
            endpoints: adminEndpoints.map(([method, path, description]) => ({ method, path, description })),
          }),
      },
    ],
    ["/sessions", sessionsEndpoint(sessions)],
  ]);
  const statuses = documentedStatuses(spec);
  // The stub's own state, journal, faults and stubbed answers, or those of the session a request names
  // (admin-sessions.ts).
  const scoped = (target: AdminTarget) =>
    new Map<string, Endpoint>([
      ...stateRoutes(target.store, spec, body),
      ["/requests", journalEndpoint(target.journal)],
      findRoute(target.journal, body),
      ["/faults", faultsEndpoint(target.faults, body, statuses)],
      ...answerRoutes(target.answers, body),
    ]);
  const routesOf = routesOfRequest(shared, scoped, { store, journal, faults, answers }, sessions);
  return Router().use(adminPrefix, dispatch(routesOf, token, adminGuard(guard)));
}

/** `/__stub/requests`: the journal, read through a filter or emptied. */
function journalEndpoint(journal: Journal): Endpoint {
  return {
    GET: (req, res) => {
      const filter = filterOf(req.query as Record<string, unknown>);
      if (Array.isArray(filter)) throw invalidRequest(filter);
      res.json({ requests: journal.list(filter), lastSeq: journal.lastSeq });
    },
    DELETE: (_req, res) => {
      journal.clear();
      res.json({ requests: [], lastSeq: journal.lastSeq });
    },
  };
}

/** `/__stub/faults`: the fault settings, read, changed, or set back to those the stub started with. */
function faultsEndpoint(
  faults: FaultControl,
  body: RequiredBody,
  statuses: ReadonlyMap<string, readonly string[]>,
): Endpoint {
  const startFaults: FaultOptions = faults.settings();
  return {
    GET: (_req, res) => res.json(faultSettingsOf(faults.settings())),
    PATCH: async (req, res) => {
      const changed = changeFaults(faults.settings(), await body(req, res), statuses);
      if (Array.isArray(changed)) throw invalidRequest(changed);
      faults.set(changed);
      res.json(faultSettingsOf(faults.settings()));
    },
    DELETE: (_req, res) => {
      faults.set(startFaults);
      res.json(faultSettingsOf(faults.settings()));
    },
  };
}

/**
 * An admin request to its handler: the guard against web pages first (403, 415), then the token (401), then the
 * endpoint by path (404) and its handler by method (405; HEAD is GET's); every failure goes to the error handler.
 */
function dispatch(
  routesOf: (req: Request, path: string) => ReadonlyMap<string, Endpoint>,
  token: string | undefined,
  guard: (req: Request) => void,
): RequestHandler {
  const expected = token === undefined ? undefined : sha256(token);
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      guard(req);
      if (expected) {
        const given = bearerToken(req);
        if (given === undefined || !timingSafeEqual(sha256(given), expected))
          throw unauthenticated("the admin API needs its token: Authorization: Bearer <admin token>");
      }
      const path = req.path === "" ? "/" : req.path;
      const route = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
      const routes = routesOf(req, route);
      // An endpoint of one item (`/answers/<id>`) is listed as `/answers/*`.
      const methods = routes.get(route) ?? routes.get(`${route.slice(0, route.lastIndexOf("/"))}/*`);
      if (!methods)
        throw notFound(
          `no admin endpoint ${req.method} ${adminPrefix}${path.slice(0, 200)}; GET ${adminPrefix}/ lists them`,
        );
      const handler = methods[req.method === "HEAD" ? "GET" : req.method];
      if (!handler) throw methodNotAllowed(req.method, Object.keys(methods).join(", "));
      await handler(req, res);
    } catch (error) {
      // Answered already (504 at the deadline), or its client is gone: what the handler threw since is no answer.
      if (signalOf(req).aborted) return;
      next(error);
    }
  };
}
