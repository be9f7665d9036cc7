/**
 * The admin API per test session (sessions.ts): a request that sends `X-Stub-Session` resets, snapshots, restores,
 * loads, reads the journal of, sets the faults of and sets the stubbed answers of that session alone; `/__stub/sessions` lists the sessions and
 * ends them. The endpoints themselves are admin.ts's and admin-state.ts's, built once per session over its parts.
 */
import type { Request, Response } from "express";
import type { FaultRules } from "./fault-rules.js";
import type { FaultControl } from "./faults.js";
import type { Journal } from "./journal.js";
import { type StubSession, type StubSessions, sessionHeader } from "./sessions.js";
import type { Store } from "./store/store.js";
import type { StubbedAnswers } from "./stubbed-answers.js";

/** An admin endpoint's handlers by method. */
type Endpoint = Partial<Record<string, (req: Request, res: Response) => unknown>>;

/** What an admin request works on: the stub's own store, journal, faults and stubbed answers, or a session's. */
export interface AdminTarget {
  store: Store;
  journal: Journal;
  faults: FaultControl;
  answers: StubbedAnswers;
}

/** The test sessions as the admin API sees them: the registry, and the session a request names (a 400 if bad). */
export interface AdminSessions {
  registry: StubSessions;
  of(req: Request): StubSession | undefined;
}

/** A session's faults as the admin endpoint reads and replaces them. */
const controlOf = (rules: FaultRules): FaultControl => ({
  settings: () => structuredClone(rules.options()),
  set: (options) => rules.set(options),
});

/**
 * The routes of an admin request: `shared` ones as they are (the list, `/sessions`), the others those `scoped` builds
 * over the request's target — the stub's own, or its session's, built once per session.
 */
export function routesOfRequest(
  shared: ReadonlyMap<string, Endpoint>,
  scoped: (target: AdminTarget) => ReadonlyMap<string, Endpoint>,
  own: AdminTarget,
  sessions: AdminSessions | undefined,
): (req: Request, path: string) => ReadonlyMap<string, Endpoint> {
  const ownRoutes = scoped(own);
  const bySession = new WeakMap<StubSession, ReadonlyMap<string, Endpoint>>();
  return (req, path) => {
    if (shared.has(path)) return shared;
    const session = sessions?.of(req);
    if (!session) return ownRoutes;
    let routes = bySession.get(session);
    if (routes === undefined) {
      const { store, journal, faults, answers } = session;
      routes = scoped({ store, journal, faults: controlOf(faults), answers });
      bySession.set(session, routes);
    }
    return routes;
  };
}

/** `/__stub/sessions`: the sessions listed; DELETE ends the one the header names, or without it every one. */
export function sessionsEndpoint(sessions: AdminSessions | undefined): Endpoint {
  const list = (res: Response) => res.json({ sessions: sessions?.registry.list() ?? [] });
  return {
    GET: (_req, res) => list(res),
    DELETE: (req, res) => {
      const id = req.headers[sessionHeader];
      if (id === undefined) sessions?.registry.clear();
      else sessions?.registry.delete(Array.isArray(id) ? id.join(", ") : id);
      list(res);
    },
  };
}
