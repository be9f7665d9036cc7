/**
 * What the journal keeps of a request the stub answered, read once its answer is sent (or its connection closed):
 * the request as sent, redacted — the `Authorization` value never, nor any string that is an API key (one of the
 * stub's, the caller's own, or anything that looks like one, `cak_…`), in the query, the headers or the body — and
 * of the answer only its status, its operation and the field violations of a 400. No response body is kept: the key
 * createApiKey answers never reaches the journal.
 */

import { bearerToken, searchOf } from "@compute-api/contract";
import { apiKeyPrefix } from "@compute-api/rules";
import type { RequestRecord } from "@compute-api/runtime";
import type { Request, RequestHandler, Response } from "express";
import type { Journal, JournalEntry } from "./journal.js";

/** What stands for a value that is not kept. */
export const redacted = "[redacted]";

/** The largest body kept, as JSON characters; a larger one is kept as a note of its size. */
export const maxJournalBodyLength = 64 * 1024;

/** The journal's recorder: the middleware to mount first, and where the authentication notes who a request acts for. */
export interface JournalRecorder {
  middleware: RequestHandler;
  /** Notes the user a request's key acts for. */
  noteUser(req: Request, userId: string): void;
}

/** Anything in a text that has the form of a key of this service. */
const keyForm = new RegExp(`${apiKeyPrefix}[A-Za-z0-9._~+/=-]*`, "g");

/** A text with every key in it replaced: the caller's own, any of the form `cak_…`, or the whole text if it is a key. */
function redactText(text: string, isKey: (text: string) => boolean, token: string | undefined): string {
  if (isKey(text)) return redacted;
  const withoutToken = token !== undefined && token.length >= 8 ? text.split(token).join(redacted) : text;
  return withoutToken.replace(keyForm, redacted);
}

/** Replaces every key in every string, at any depth. */
function redact(value: unknown, isKey: (text: string) => boolean, token?: string): unknown {
  if (typeof value === "string") return redactText(value, isKey, token);
  if (Array.isArray(value)) return value.map((item) => redact(item, isKey, token));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [redactText(name, isKey, token), redact(item, isKey, token)]),
    );
  return value;
}

/** The query pairs as sent, a repeated name's values in order. */
function queryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const had = query[name];
    query[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return query;
}

/** The field violations of an error body, if it has any. */
export function violationsOf(body: unknown): JournalEntry["violations"] {
  const details = (body as { details?: { fieldViolations?: { field: string; description: string }[] }[] })?.details;
  const violations = details?.flatMap((d) => d.fieldViolations ?? []) ?? [];
  return violations.map(({ field, description }) => ({ field, description }));
}

/** A request the stub answered, as the journal reads it, wherever it was answered (the Express app, the MSW handlers). */
export interface AnsweredRequest {
  /** When it arrived (ISO 8601). */
  time: string;
  durationMs: number;
  method: string;
  path: string;
  /** The query string as sent, without its `?`. */
  search: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; undefined without one. */
  body: unknown;
  /** The status answered; null when the connection closed before an answer. */
  status: number | null;
  operationId?: string | undefined;
  userId?: string | undefined;
  /** The field violations of a 400 answer. */
  violations?: JournalEntry["violations"];
  fault?: unknown;
}

/**
 * The journal's entry of an answered request, redacted. `isStubKey` tells whether a string is a key of the stub (its
 * SHA-256 is one the store knows).
 */
export function journalEntry(
  answered: AnsweredRequest,
  isStubKey: (text: string) => boolean,
): Omit<JournalEntry, "seq"> {
  const token = bearerToken({ headers: answered.headers });
  // A whole string that is a key of the stub (by its SHA-256): only strings of a key's length are hashed.
  const isKey = (text: string) => text.length >= 8 && text.length <= 512 && isStubKey(text);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answered.headers)) {
    if (value === undefined) continue;
    headers[name] =
      name === "authorization"
        ? /^bearer /i.test(String(value))
          ? `Bearer ${redacted}`
          : redacted
        : (redact(value, isKey, token) as string | string[]);
  }
  const entry: Omit<JournalEntry, "seq"> = {
    time: answered.time,
    durationMs: answered.durationMs,
    method: answered.method,
    path: redactText(answered.path, isKey, token),
    query: redact(queryOf(answered.search), isKey, token) as Record<string, string | string[]>,
    headers,
    status: answered.status,
  };
  const body = answered.body;
  if (body !== undefined) {
    try {
      const length = JSON.stringify(body)?.length ?? 0;
      entry.body =
        length > maxJournalBodyLength ? `[a body of ${length} characters, not kept]` : redact(body, isKey, token);
    } catch {
      // Nested deeper than the stack goes (100,000 arrays in 200 kB; Node 26 stringifies those, redact() may still not):
      // thrown here, it would crash the stub.
      entry.body = "[a body nested too deeply to keep]";
    }
  }
  if (answered.operationId) entry.operationId = answered.operationId;
  if (answered.userId) entry.userId = answered.userId;
  const violations = answered.violations;
  if (violations && violations.length > 0) entry.violations = redact(violations, isKey, token) as typeof violations;
  if (answered.fault !== undefined) entry.fault = String(answered.fault);
  return entry;
}

/** Where a request's entry goes instead of the journal: its test session's journal, with its store's keys. */
export type JournalOf = (req: Request) => { journal: Journal; isStubKey: (text: string) => boolean } | undefined;

/**
 * Creates the recorder of a journal. `isStubKey` tells whether a string is a key of the stub (its SHA-256 is one
 * the store knows); `journalOf`, where a request of a test session is noted instead.
 */
export function journalRecorder(
  journal: Journal,
  isStubKey: (text: string) => boolean,
  journalOf?: JournalOf,
): JournalRecorder {
  const users = new WeakMap<Request, string>();
  const middleware: RequestHandler = (req, res: Response, next) => {
    const started = Date.now();
    const time = new Date(started).toISOString();
    let violations: JournalEntry["violations"];
    const json = res.json;
    res.json = function (this: Response, body: unknown) {
      if (this.statusCode === 400) violations = violationsOf(body);
      return json.call(this, body);
    };
    res.once("close", () => {
      const target = journalOf?.(req) ?? { journal, isStubKey };
      const entry = journalEntry(
        {
          time,
          durationMs: Date.now() - started,
          method: req.method,
          path: req.path,
          search: searchOf(req.originalUrl),
          headers: req.headers,
          body: req.body,
          status: res.writableFinished ? res.statusCode : null,
          operationId: (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId,
          userId: users.get(req),
          violations,
          fault: (res.locals as { record?: RequestRecord }).record?.fields.fault,
        },
        target.isStubKey,
      );
      target.journal.add(entry);
    });
    next();
  };
  return { middleware, noteUser: (req, userId) => users.set(req, userId) };
}
