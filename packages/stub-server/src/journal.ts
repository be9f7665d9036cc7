/**
 * The request journal: the last requests the stub answered, oldest first, so that a test can assert what its client
 * sent (WireMock's request journal). What goes in is already redacted (journal-http.ts): no API key, no
 * `Authorization` value. Nothing here loads Express or a Node built-in.
 */
import { wildcardMatch } from "./request-match.js";

/** One answered request. */
export interface JournalEntry {
  /** Its place in the stub's run: 1, 2, …; `since=<seq>` lists the ones after it. */
  seq: number;
  /** When it arrived (ISO 8601). */
  time: string;
  durationMs: number;
  method: string;
  path: string;
  /** The query pairs as sent; a name sent twice has its values in order. */
  query: Record<string, string | string[]>;
  /** The request headers, lower-case; `authorization` as `Bearer [redacted]`. */
  headers: Record<string, string | string[]>;
  /** The JSON body as parsed; absent without one. */
  body?: unknown;
  /** The status answered; null when the connection was closed before an answer (`--drop`, a client gone). */
  status: number | null;
  /** The operation of the spec it was routed to. */
  operationId?: string;
  /** Who its API key acts for. */
  userId?: string;
  /** The field violations of a 400 answer. */
  violations?: { field: string; description: string }[];
  /** The fault injected, as the request's log line names it: `503`, `drop`, `rate-limit`, `prefer 429`. */
  fault?: string;
  /** Forwarded to the real backend (`--forward`): the backend's answer, or the gateway's refusal of it. */
  forwarded?: true;
  /** The stubbed answer it was given (`POST /__stub/answers`), by id. */
  answerId?: string;
}

/** What `list` keeps; each absent filter keeps every entry. */
export interface JournalFilter {
  method?: string;
  /** The path, where `*` stands for any characters: `/v1/projects/*` */
  path?: string;
  operationId?: string;
  /** A status (`404`) or a class of them (`4xx`). */
  status?: string;
  /** Entries after this `seq`, or from this time on (ISO 8601). */
  since?: string;
  /** Only the last `limit` of those that pass. */
  limit?: number;
}

/** The default number of entries a journal keeps. */
export const defaultJournalSize = 1000;

/** The test of a status filter: `404` or `4xx`. */
export function statusTest(pattern: string): (status: number | null) => boolean {
  const lower = pattern.toLowerCase();
  if (/^[1-5]xx$/.test(lower)) return (status) => status !== null && Math.floor(status / 100) === Number(lower[0]);
  return (status) => String(status) === pattern;
}

/** A ring of the last `size` entries (0 keeps none). */
export class Journal {
  private readonly entries: JournalEntry[] = [];
  private start = 0;
  private seq = 0;

  constructor(readonly size: number = defaultJournalSize) {}

  /** Adds an answered request, numbered next; the oldest goes when the ring is full. */
  add(entry: Omit<JournalEntry, "seq">): void {
    const numbered = { seq: ++this.seq, ...entry };
    if (this.size <= 0) return;
    if (this.entries.length < this.size) this.entries.push(numbered);
    else {
      this.entries[this.start] = numbered;
      this.start = (this.start + 1) % this.size;
    }
  }

  /** The entries that pass the filter, oldest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase();
    const pattern = filter.path;
    const status = filter.status === undefined ? undefined : statusTest(filter.status);
    const since = filter.since;
    const sinceSeq = since !== undefined && /^\d+$/.test(since) ? Number(since) : undefined;
    const sinceTime = since !== undefined && sinceSeq === undefined ? Date.parse(since) : undefined;
    const ordered = [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    const kept = ordered.filter(
      (e) =>
        (method === undefined || e.method === method) &&
        (pattern === undefined || wildcardMatch(pattern, e.path)) &&
        (filter.operationId === undefined || e.operationId === filter.operationId) &&
        (status === undefined || status(e.status)) &&
        (sinceSeq === undefined || e.seq > sinceSeq) &&
        (sinceTime === undefined || Date.parse(e.time) >= sinceTime),
    );
    return filter.limit === undefined ? kept : kept.slice(Math.max(0, kept.length - filter.limit));
  }

  /** Empties the journal; numbering goes on. */
  clear(): void {
    this.entries.length = 0;
    this.start = 0;
  }

  /** The `seq` of the last request added (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }
}
