/**
 * Test sessions inside one stub, so that test files running in parallel against it do not see each other: a request
 * that sends `X-Stub-Session: <id>` is answered on that session's own state, faults, journal and stubbed answers —
 * the API's requests and the admin API's alike — and a request without it on the stub's own, as ever. A session is made on its first
 * request (no call to set it up, and an id a test picks at random never meets another's), from the data a reset goes
 * back to: a fork of the store (store.ts), which copies nothing until the session changes something, so that making
 * one costs the same over ten resources as over a million. Keys given at the start (`--api-key`, `apiKeys`) work in
 * every session; a key created in one works there only. Nothing here loads Express or a Node built-in.
 */
import { invalidRequest } from "@compute-api/contract";
import { sessionHeader } from "./admin-prefix.js";
import { createFaultRules, type FaultOptions, type FaultRules } from "./fault-rules.js";
import { Journal } from "./journal.js";
import type { Store } from "./store/store.js";
import type { StubbedAnswers } from "./stubbed-answers.js";

export { sessionHeader } from "./admin-prefix.js";

/** The most sessions a stub holds: a new one past them is refused until one ends. */
export const maxSessions = 1000;

/** What a session id may be: 1 to 128 of letters, digits and `-._~` (a UUID, a test file's name). */
const sessionIdForm = /^[A-Za-z0-9._~-]{1,128}$/;

/** A session: its store, its faults, its journal and its stubbed answers. */
export interface StubSession {
  readonly id: string;
  readonly store: Store;
  readonly faults: FaultRules;
  readonly journal: Journal;
  readonly answers: StubbedAnswers;
  /** When it was made (ISO 8601). */
  readonly createTime: string;
}

/** A session as `GET /__stub/sessions` lists it. */
export interface SessionSummary {
  id: string;
  createTime: string;
  /** Resources the session copied because it changed them. */
  changedResources: number;
  /** Requests its journal numbered (the `seq` of its last). */
  requests: number;
}

/**
 * What a session starts with besides the data: the stub's fault settings at the start, its journal size, and its
 * stubbed answers (none, checked against the stub's spec).
 */
export interface SessionOptions {
  faults: FaultOptions;
  journalSize: number;
  answers: () => StubbedAnswers;
}

/** The sessions of one stub, by id. */
export class StubSessions {
  private readonly sessions = new Map<string, StubSession>();

  constructor(
    private readonly root: Store,
    private readonly options: SessionOptions,
  ) {}

  /**
   * The session a request's header names, made on first use; undefined without the header (the stub's own state).
   * An id it cannot take, or a new one past `maxSessions`, is a 400 naming the header.
   */
  of(header: string | string[] | undefined): StubSession | undefined {
    if (header === undefined) return undefined;
    const id = Array.isArray(header) ? header.join(", ") : header;
    const found = this.sessions.get(id);
    if (found) return found;
    if (!sessionIdForm.test(id))
      throw invalidRequest([
        {
          field: `header.${sessionHeader}`,
          description: "must be 1 to 128 letters, digits or -._~ (one session, such as a UUID)",
        },
      ]);
    if (this.sessions.size >= maxSessions)
      throw invalidRequest([
        {
          field: `header.${sessionHeader}`,
          description: `would be a session past the stub's ${maxSessions}: end some first (DELETE /__stub/sessions)`,
        },
      ]);
    const session: StubSession = {
      id,
      store: this.root.fork(),
      faults: createFaultRules(structuredClone(this.options.faults)),
      journal: new Journal(this.options.journalSize),
      answers: this.options.answers(),
      createTime: new Date().toISOString(),
    };
    this.sessions.set(id, session);
    return session;
  }

  /** The sessions, oldest first. */
  list(): SessionSummary[] {
    return [...this.sessions.values()].map(({ id, createTime, store, journal }) => ({
      id,
      createTime,
      changedResources: store.changedResources,
      requests: journal.lastSeq,
    }));
  }

  /** Ends a session (its state, faults and journal are gone); false when there was none. */
  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** Ends every session. */
  clear(): void {
    this.sessions.clear();
  }
}
