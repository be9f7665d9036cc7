/**
 * The test session of each request to the stub's Express app (sessions.ts), read from its `X-Stub-Session` header
 * once, first thing: the journal's recorder, the faults, the authentication (whose user then carries the session's
 * state to the operation) and the admin API all ask here, and all get the same session for one request.
 */
import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import { type StubSession, type StubSessions, sessionHeader } from "./sessions.js";

/** The sessions of an app's requests. */
export interface RequestSessions {
  /** The request's session, made on first use (undefined: the stub's own state); throws a 400 for a bad header. */
  of(req: IncomingMessage): StubSession | undefined;
  /** The session a request was found to have, never throwing (undefined before `middleware`, or for a bad header). */
  known(req: IncomingMessage): StubSession | undefined;
  /** Finds the request's session, or answers a header it cannot take with the 400. */
  middleware: RequestHandler;
  registry: StubSessions;
}

/** The sessions of requests, over a registry. */
export function requestSessions(registry: StubSessions): RequestSessions {
  const found = new WeakMap<IncomingMessage, StubSession | undefined>();
  const of = (req: IncomingMessage): StubSession | undefined => {
    if (found.has(req)) return found.get(req);
    const session = registry.of(req.headers[sessionHeader]);
    found.set(req, session);
    return session;
  };
  return {
    of,
    known: (req) => found.get(req),
    middleware: (req, _res, next) => {
      try {
        of(req);
      } catch (error) {
        return next(error);
      }
      next();
    },
    registry,
  };
}
