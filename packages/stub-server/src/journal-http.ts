/**
 * What the journal keeps of a request the stub answered, read once its answer is sent (or its connection closed):
 * the request as sent, redacted — the `Authorization` value never, nor any string that is an API key (one of the
 * stub's, the caller's own, or anything that looks like one, `cak_…`), in the query, the headers or the body — and
 * of the answer only its status, its operation and the field violations of a 400. No response body is kept: the key
 * createApiKey answers never reaches the journal.
 */
import type { RequestRecord } from "@compute-api/contract/http";
import { bearerToken, searchOf } from "@compute-api/contract/internal";
import { apiKeyPrefix } from "@compute-api/server/rules";
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
function queryOf(req: Request): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(searchOf(req.originalUrl))) {
    const had = query[name];
    query[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return query;
}

/** The field violations of an error body, if it has any. */
function violationsOf(body: unknown): JournalEntry["violations"] {
  const details = (body as { details?: { fieldViolations?: { field: string; description: string }[] }[] })?.details;
  const violations = details?.flatMap((d) => d.fieldViolations ?? []) ?? [];
  return violations.map(({ field, description }) => ({ field, description }));
}

/**
 * Creates the recorder of a journal. `isStubKey` tells whether a string is a key of the stub (its SHA-256 is one
 * the store knows).
 */
export function journalRecorder(journal: Journal, isStubKey: (text: string) => boolean): JournalRecorder {
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
      const token = bearerToken(req);
      // A whole string that is a key of the stub (by its SHA-256): only strings of a key's length are hashed.
      const isKey = (text: string) => text.length >= 8 && text.length <= 512 && isStubKey(text);
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        headers[name] =
          name === "authorization"
            ? /^bearer /i.test(String(value))
              ? `Bearer ${redacted}`
              : redacted
            : (redact(value, isKey, token) as string | string[]);
      }
      const entry: Omit<JournalEntry, "seq"> = {
        time,
        durationMs: Date.now() - started,
        method: req.method,
        path: redactText(req.path, isKey, token),
        query: redact(queryOf(req), isKey, token) as Record<string, string | string[]>,
        headers,
        status: res.writableFinished ? res.statusCode : null,
      };
      const body: unknown = req.body;
      if (body !== undefined) {
        const length = JSON.stringify(body)?.length ?? 0;
        entry.body =
          length > maxJournalBodyLength ? `[a body of ${length} characters, not kept]` : redact(body, isKey, token);
      }
      const operationId = (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
      if (operationId) entry.operationId = operationId;
      const userId = users.get(req);
      if (userId) entry.userId = userId;
      if (violations && violations.length > 0) entry.violations = redact(violations, isKey, token) as typeof violations;
      const fault = (res.locals as { record?: RequestRecord }).record?.fields.fault;
      if (fault !== undefined) entry.fault = String(fault);
      journal.add(entry);
    });
    next();
  };
  return { middleware, noteUser: (req, userId) => users.set(req, userId) };
}
