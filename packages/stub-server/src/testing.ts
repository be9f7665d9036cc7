/**
 * `@compute-api/stub-server/testing`: the stub in other people's test suites — `startStub()`, a stub in the
 * test's own process on an ephemeral 127.0.0.1 port with a key and its admin API as functions, and `connectStub()`,
 * the same functions for a stub that runs elsewhere (a container) — and the stub's parts that other packages' tests
 * hold their own code to: the store (the search the Postgres example must answer alike) and the `Prefer` scanner
 * (the hostile-header suite).
 */
import type { Fixtures } from "@compute-api/fixtures";
import { newApiKey } from "@compute-api/rules";
import { adminPrefix } from "./admin.js";
import type { FaultSettings } from "./admin-faults.js";
import type { JournalEntry, JournalFilter } from "./journal.js";
import { type ServerOptions, startServer } from "./server.js";
import { sessionHeader } from "./sessions.js";

export type { FaultSettings } from "./admin-faults.js";
export { maxPreferLength, parsePrefer } from "./faults.js";
export type { JournalEntry, JournalFilter } from "./journal.js";
export { sessionHeader } from "./sessions.js";
export { Store, type User } from "./store/store.js";

/** What reset, restore and load answer: the state now. */
export interface StateSummary {
  resourceCount: number;
  userIds: string[];
}

/** What to load: a data set, a generated one, or the built-in data. */
export type LoadSource = { data: Fixtures } | { generate: number; seed?: number } | { builtin: true };

/** A stub and its admin API as functions; each rejects with the admin API's error body in its message. */
export interface StubHandle {
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
  /** The requests the stub answered, oldest first, as the journal's filter keeps them. */
  requests(filter?: JournalFilter): Promise<JournalEntry[]>;
  /** Empties the journal. */
  clearRequests(): Promise<void>;
  /** The fault settings, or changes some of them (`{ faults: "503=100%" }`; `null` turns one off). */
  faults(change?: Partial<Record<keyof FaultSettings, unknown>>): Promise<FaultSettings>;
  /**
   * A test session of this stub (`X-Stub-Session`, made on its first request): its own state (copied on write from
   * the data a reset goes back to), faults and journal, so that test files running in parallel against one stub do
   * not see each other. Its client must send `headers` on every request; the key is the stub's. Default id: a new
   * random one.
   */
  session(id?: string): StubSession;
  /** Stops the stub (a stub started elsewhere keeps running). */
  close(): Promise<void>;
}

/** A test session of a stub: the stub's functions on the session's own state, faults and journal. */
export interface StubSession extends Omit<StubHandle, "session" | "close"> {
  /** The session's id, what its header sends. */
  id: string;
  /** What every request of the client under test sends: `{ "x-stub-session": id }`. */
  headers: Record<string, string>;
  /** Ends the session: its state, faults and journal are gone (the stub keeps running). */
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
    requests: async (filter = {}) => {
      const query = new URLSearchParams(
        Object.entries(filter).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
      );
      const search = query.toString() === "" ? "" : `?${query}`;
      return (await admin<{ requests: JournalEntry[] }>("GET", `/requests${search}`)).requests;
    },
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

/** Options of `startStub`: the stub's (`fixtures`, `faults`, `apiKeys`, …); it listens on 127.0.0.1, port 0 by default. */
export type StartStubOptions = Omit<ServerOptions, "admin"> & {
  /** The key of the first user; default a new one. */
  apiKey?: string;
};

/**
 * Starts the stub in this process on 127.0.0.1 and an ephemeral port, with a key for the data's first user; what it
 * returns drives the stub through its own admin API, as a test in another process would.
 */
export async function startStub(options: StartStubOptions = {}): Promise<StubHandle> {
  const { apiKey = newApiKey(), ...rest } = options;
  const firstUser = rest.fixtures?.users[0]?.id ?? "alice";
  const running = await startServer({
    port: 0,
    host: "127.0.0.1",
    ...rest,
    apiKeys: { ...rest.apiKeys, [firstUser]: apiKey },
  });
  return { ...connectStub(running.url, { apiKey }), close: () => running.close() };
}
