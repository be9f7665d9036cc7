/**
 * The admin API of a running stub as functions, over plain `fetch`: what `startStub` returns, in the ESM build (a
 * stub in the test's process) and the CommonJS build (a stub in a child process) alike. Imports no server code.
 */
import type { Fixtures } from "@compute-api/fixtures";
import type { FaultSettings } from "./admin-faults.js";
import { adminPrefix, sessionHeader } from "./admin-prefix.js";
import { type AnswersOverHttp, answersOverHttp } from "./testing-answers.js";

export type { FaultSettings } from "./admin-faults.js";
export { sessionHeader } from "./admin-prefix.js";
export type { JournalEntry, JournalFilter } from "./journal.js";
export type * from "./testing-answers.js";

/** What reset, restore and load answer: the state now. */
export interface StateSummary {
  resourceCount: number;
  userIds: string[];
}

/** What to load: a data set, a generated one, or the built-in data. */
export type LoadSource = { data: Fixtures } | { generate: number; seed?: number } | { builtin: true };

/**
 * A stub and its admin API as functions; each rejects with the admin API's error body in its message. The stubbed
 * answers and the journal's verification (`answer`, `requests`, `expectRequests`, …) are testing-answers.ts's.
 */
export interface StubHandle extends AnswersOverHttp {
  /** Base URL, such as `http://127.0.0.1:41234`, for the client under test. */
  url: string;
  /** A key of the data's first user (`alice` in the built-in data), valid across reset, restore and load. */
  apiKey: string;
  /** Back to the data the stub started with (or last loaded). */
  reset(): Promise<StateSummary>;
  /** The whole state as a fixture file's data (keys as SHA-256 only). */
  snapshot(): Promise<Fixtures>;
  /** Replaces the state with a data set, such as a snapshot. */
  restore(data: Fixtures): Promise<StateSummary>;
  /** Replaces the state and makes it the one reset goes back to. */
  load(source: LoadSource): Promise<StateSummary>;
  /** Empties the journal. */
  clearRequests(): Promise<void>;
  /** The fault settings, or changes some of them (`{ faults: "503=100%" }`; `null` turns one off). */
  faults(change?: Partial<Record<keyof FaultSettings, unknown>>): Promise<FaultSettings>;
  /**
   * A test session of this stub (`X-Stub-Session`, made on its first request): its own state (copied on write from
   * the data a reset goes back to), faults, journal and stubbed answers, so that test files running in parallel
   * against one stub do not see each other. Its client must send `headers` on every request; the key is the stub's.
   * Default id: a new random one.
   */
  session(id?: string): StubSession;
  /** Stops the stub (a stub started elsewhere keeps running). */
  close(): Promise<void>;
}

/** A test session of a stub: the stub's functions on the session's own state, faults, journal and answers. */
export interface StubSession extends Omit<StubHandle, "session" | "close"> {
  /** The session's id, what its header sends. */
  id: string;
  /** What every request of the client under test sends: `{ "x-stub-session": id }`. */
  headers: Record<string, string>;
  /** Ends the session: its state, faults, journal and answers are gone (the stub keeps running). */
  close(): Promise<void>;
}

/** Where a running stub is and how to reach its admin API. */
export interface ConnectOptions {
  /** A key of one of its users, for `apiKey`. */
  apiKey: string;
  /** Its admin token, when it has one (`--admin-token`). */
  adminToken?: string;
}

/** The admin API of a stub that runs elsewhere (a container, another process), as functions. */
export function connectStub(url: string, options: ConnectOptions): StubHandle {
  return connect(url, options, undefined);
}

/** The admin API's functions, on the stub's own state or on a session's (`sessionId`). */
function connect(url: string, { apiKey, adminToken }: ConnectOptions, sessionId: string | undefined): StubHandle {
  const base = url.replace(/\/+$/, "");
  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = sessionId === undefined ? {} : { [sessionHeader]: sessionId };
    if (adminToken !== undefined) headers.authorization = `Bearer ${adminToken}`;
    // Every write says JSON, with a body or without one: the admin API refuses any other (a web page's simple request).
    if (method !== "GET") headers["content-type"] = "application/json";
    const response = await fetch(`${base}${adminPrefix}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${adminPrefix}${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }
  return {
    url: base,
    apiKey,
    reset: () => admin("POST", "/reset"),
    snapshot: () => admin("GET", "/snapshot"),
    restore: (data) => admin("POST", "/restore", data),
    load: (source) => admin("POST", "/load", source),
    ...answersOverHttp(admin),
    clearRequests: async () => {
      await admin("DELETE", "/requests");
    },
    faults: (change) => (change === undefined ? admin("GET", "/faults") : admin("PATCH", "/faults", change)),
    session: (id = globalThis.crypto.randomUUID()) => {
      const { session: _, ...handle } = connect(
        url,
        { apiKey, ...(adminToken === undefined ? {} : { adminToken }) },
        id,
      );
      return { ...handle, id, headers: { [sessionHeader]: id } };
    },
    // A session's handle ends its session; the stub's own does nothing (the stub runs elsewhere).
    close: async () => {
      if (sessionId !== undefined) await admin("DELETE", "/sessions");
    },
  };
}
