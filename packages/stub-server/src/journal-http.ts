/**
 * What the journal keeps of a request the stub answered, read once its answer is sent (or its connection closed):
 * the request as sent, redacted — the `Authorization` and `Proxy-Authorization` values never, nor any string that is
 * an API key (one of the stub's, the caller's own, or anything of a key's form in any spelling: `cak_…`, `CAK_…`,
 * `cak%5F…`) or the admin token, in the path, the query, the headers or the body — and of the answer only its
 * status, its operation and the field violations of a 400. No response body is kept: the key createApiKey answers
 * never reaches the journal.
 */

import { bearerToken, searchOf } from "@compute-api/contract";
import { redacted, redactKeys } from "@compute-api/rules";
import type { RequestRecord } from "@compute-api/runtime";
import type { Request, RequestHandler, Response } from "express";
import type { Journal, JournalEntry } from "./journal.js";

/** The largest body kept, as JSON characters; a larger one is kept as a note of its size. */
export const maxJournalBodyLength = 64 * 1024;

/** The journal's recorder: the middleware to mount first, and where the authentication notes who a request acts for. */
export interface JournalRecorder {
  middleware: RequestHandler;
  /** Notes the user a request's key acts for. */
  noteUser(req: Request, userId: string): void;
}

/** The headers whose values are credentials: kept as their scheme, if it is `Bearer`, and `[redacted]`. */
const credentialHeaders = new Set(["authorization", "proxy-authorization"]);

/**
 * A value with every secret in it replaced, at any depth: a whole string that is a key of the stub or one of `secrets`
 * (the caller's own token, the admin token), every place a secret of 8 characters or more occurs, and anything of a
 * key's form (the rules' redactKeys, as the gateway's recording).
 */
function redact<T>(value: T, isKey: (text: string) => boolean, secrets: readonly string[]): T {
  return redactKeys(value, (text) => {
    if (isKey(text) || secrets.includes(text)) return redacted;
    let kept = text;
    for (const secret of secrets) if (secret.length >= 8) kept = kept.split(secret).join(redacted);
    return kept;
  });
}

/** The query pairs as sent, a repeated name's values in order. */
export function queryOf(search: string): Record<string, string | string[]> {
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
  /** Forwarded to the real backend (`--forward`). */
  forwarded?: boolean | undefined;
  /** The id of the stubbed answer it got. */
  answerId?: string | undefined;
}

/**
 * The journal's entry of an answered request, redacted. `isStubKey` tells whether a string is a key of the stub (its
 * SHA-256 is one the store knows); `adminToken`, the stub's, is redacted wherever the request carried it.
 */
export function journalEntry(
  answered: AnsweredRequest,
  isStubKey: (text: string) => boolean,
  adminToken?: string,
): Omit<JournalEntry, "seq"> {
  const secrets = [bearerToken({ headers: answered.headers }), adminToken].filter((s) => s !== undefined);
  // A whole string that is a key of the stub (by its SHA-256): only strings of a key's length are hashed.
  const isKey = (text: string) => text.length >= 8 && text.length <= 512 && isStubKey(text);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answered.headers)) {
    if (value === undefined) continue;
    headers[name] = credentialHeaders.has(name)
      ? /^bearer /i.test(String(value))
        ? `Bearer ${redacted}`
        : redacted
      : (redact(value, isKey, secrets) as string | string[]);
  }
  const entry: Omit<JournalEntry, "seq"> = {
    time: answered.time,
    durationMs: answered.durationMs,
    method: answered.method,
    path: redact(answered.path, isKey, secrets),
    query: redact(queryOf(answered.search), isKey, secrets) as Record<string, string | string[]>,
    headers,
    status: answered.status,
  };
  const body = answered.body;
  if (body !== undefined) {
    try {
      const length = JSON.stringify(body)?.length ?? 0;
      entry.body =
        length > maxJournalBodyLength ? `[a body of ${length} characters, not kept]` : redact(body, isKey, secrets);
    } catch {
      // Nested deeper than the stack goes (100,000 arrays in 200 kB; Node 26 stringifies those, redact() may still not):
      // thrown here, it would crash the stub.
      entry.body = "[a body nested too deeply to keep]";
    }
  }
  if (answered.operationId) entry.operationId = answered.operationId;
  if (answered.userId) entry.userId = answered.userId;
  const violations = answered.violations;
  if (violations && violations.length > 0) entry.violations = redact(violations, isKey, secrets) as typeof violations;
  if (answered.fault !== undefined) entry.fault = String(answered.fault);
  if (answered.forwarded) entry.forwarded = true;
  if (answered.answerId !== undefined) entry.answerId = answered.answerId;
  return entry;
}

/** Where a request's entry goes: a journal, and who a key of its store acts for (undefined: no key of it). */
export interface JournalTarget {
  journal: Journal;
  userOf(key: string): string | undefined;
}

/** Options of {@link journalRecorder}. */
export interface RecorderOptions {
  /** The stub's admin token, redacted wherever a request carries it. */
  adminToken?: string | undefined;
  /** The operation of a request a fault answered before it was routed, by its method and path. */
  operationOf?: (method: string, path: string) => string | undefined;
  /** Where a request of a test session is noted instead of the stub's own journal: its session's. */
  targetOf?: (req: Request) => JournalTarget | undefined;
}

/**
 * Creates the recorder of the stub's journal (`own`, with the keys of the stub's store). A request a fault answered
 * before validation is named by `operationOf` and its key's user, for a test that counts them.
 */
export function journalRecorder(
  own: JournalTarget,
  { adminToken, operationOf, targetOf }: RecorderOptions = {},
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
      const target = targetOf?.(req) ?? own;
      const locals = res.locals as { record?: RequestRecord; answerId?: string };
      const record = locals.record;
      const fault = record?.fields.fault;
      // A forwarded request's operation is the one the gateway's routing wrote into its record.
      let operationId =
        (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId ??
        record?.operationId;
      let userId = users.get(req);
      if (fault !== undefined) {
        // A fault before validation answered it: named as the request it was, for a test that counts them.
        operationId ??= operationOf?.(req.method, req.path);
        const token = userId === undefined ? bearerToken(req) : undefined;
        if (token !== undefined) userId = target.userOf(token);
      }
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
          operationId,
          userId,
          violations,
          fault,
          forwarded: record?.fields.forwarded === true,
          answerId: locals.answerId,
        },
        (text) => target.userOf(text) !== undefined,
        adminToken,
      );
      target.journal.add(entry);
    });
    next();
  };
  return { middleware, noteUser: (req, userId) => users.set(req, userId) };
}
