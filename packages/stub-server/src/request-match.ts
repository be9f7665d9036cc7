/**
 * What a request must look like to match — its operation, method, path (`*` wildcards), query pairs, headers and a
 * partial JSON body — and how a request differs from it: one matcher for the journal's filters (request-verify.ts)
 * and for stubbed answers (stubbed-answers.ts), over HTTP and in the MSW handlers. Nothing here loads Express or a
 * Node built-in.
 */
import type { FieldViolation } from "@compute-api/contract";

/** What a request must have; each absent part matches any request. */
export interface RequestMatch {
  /** The spec's operation it was routed to. */
  operationId?: string;
  /** The method, in any case. */
  method?: string;
  /** The path, where `*` stands for any characters: `/v1/projects/*` */
  path?: string;
  /** Query pairs it must carry, each with exactly this value (a name sent twice: its values in order). */
  query?: Record<string, string | string[]>;
  /** Headers it must carry, names in any case, each with exactly this value. */
  headers?: Record<string, string>;
  /** A partial JSON body: each member of an object given must be there and match; arrays match item by item. */
  body?: unknown;
}

/** A request as the matcher reads it: what the journal keeps of it. */
export interface RequestView {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  operationId?: string | undefined;
}

/** The names of a match. */
export const matchNames = ["operationId", "method", "path", "query", "headers", "body"] as const;

/**
 * Whether `text` matches `pattern`, where each `*` stands for any characters (none included). The first part must
 * start the text and the last end it; each part between is taken where it first occurs after the one before, which
 * is right for `*` alone (a later place leaves less text to the parts after it, never more). Each part is one
 * `indexOf`, so the time grows with the text and the pattern, never with their product's powers: a regular
 * expression of `.*` backtracks (`^.*a.*a.*a.*b$` on 2,000 characters ran for over an hour).
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  const parts = pattern.split("*");
  const first = parts[0] as string;
  if (parts.length === 1) return text === pattern;
  const last = parts[parts.length - 1] as string;
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

const shown = (value: unknown): string => (value === undefined ? "absent" : JSON.stringify(value));

/** How `actual` differs from the partial JSON `expected`, each difference named at its place under `at`. */
export function bodyDifferences(expected: unknown, actual: unknown, at: string, out: string[] = []): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      out.push(`${at}: expected an array of ${expected.length}, was ${shown(actual)}`);
    else for (const [i, item] of expected.entries()) bodyDifferences(item, actual[i], `${at}[${i}]`, out);
  } else if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual))
      out.push(`${at}: expected an object, was ${shown(actual)}`);
    else
      for (const [name, item] of Object.entries(expected))
        bodyDifferences(item, (actual as Record<string, unknown>)[name], `${at}.${name}`, out);
  } else if (expected !== actual) out.push(`${at}: expected ${shown(expected)}, was ${shown(actual)}`);
  return out;
}

/** A header's value as one string, as a client reads a repeated one. */
const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

/** How a request differs from a match, one line per part (empty: it matches). */
export function matchDifferences(match: RequestMatch, request: RequestView): string[] {
  const out: string[] = [];
  if (match.operationId !== undefined && match.operationId !== request.operationId)
    out.push(`operationId: expected ${shown(match.operationId)}, was ${shown(request.operationId)}`);
  if (match.method !== undefined && match.method.toUpperCase() !== request.method.toUpperCase())
    out.push(`method: expected ${match.method.toUpperCase()}, was ${request.method}`);
  if (match.path !== undefined && !wildcardMatch(match.path, request.path))
    out.push(`path: expected ${shown(match.path)}, was ${shown(request.path)}`);
  for (const [name, value] of Object.entries(match.query ?? {})) {
    const sent = request.query[name];
    if (JSON.stringify(sent) !== JSON.stringify(value))
      out.push(`query.${name}: expected ${shown(value)}, was ${shown(sent)}`);
  }
  for (const [name, value] of Object.entries(match.headers ?? {})) {
    const sent = headerText(request.headers[name.toLowerCase()]);
    if (sent !== value) out.push(`header.${name.toLowerCase()}: expected ${shown(value)}, was ${shown(sent)}`);
  }
  if (match.body !== undefined) bodyDifferences(match.body, request.body, "body", out);
  return out;
}

/** Whether a request matches. */
export const matches = (match: RequestMatch, request: RequestView): boolean =>
  matchDifferences(match, request).length === 0;

/** Whether a JSON value is an object (not an array, not null). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A header name as RFC 9110 allows it (a token). */
export const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Reads the parts of a match from a JSON object (the other names are the caller's), adding a violation under `at`
 * for each part of the wrong form.
 */
export function readMatch(value: Record<string, unknown>, at: string, violations: FieldViolation[]): RequestMatch {
  const match: RequestMatch = {};
  const field = (name: string) => `${at}${name}`;
  for (const name of ["operationId", "method", "path"] as const) {
    const part = value[name];
    if (part === undefined) continue;
    if (typeof part !== "string" || part === "")
      violations.push({ field: field(name), description: "must be a non-empty string" });
    else if (name === "path" && /[?#]/.test(part))
      violations.push({ field: field(name), description: "is the path alone: give the query pairs as query" });
    else match[name] = part;
  }
  if (value.query !== undefined) {
    const query = value.query;
    const valid =
      isRecord(query) &&
      Object.values(query).every(
        (v) => typeof v === "string" || (Array.isArray(v) && v.every((item) => typeof item === "string")),
      );
    if (valid) match.query = query as RequestMatch["query"] & object;
    else violations.push({ field: field("query"), description: "must map names to a string or an array of strings" });
  }
  if (value.headers !== undefined) {
    const headers = value.headers;
    if (isRecord(headers) && Object.entries(headers).every(([n, v]) => headerName.test(n) && typeof v === "string"))
      match.headers = headers as Record<string, string>;
    else violations.push({ field: field("headers"), description: "must map header names to strings" });
  }
  if (value.body !== undefined) match.body = value.body;
  return match;
}

/** The violations of names an object may not carry, each named under `at`. */
export function unknownNames(
  value: Record<string, unknown>,
  names: readonly string[],
  at: string,
  what: string,
): FieldViolation[] {
  return Object.keys(value)
    .filter((name) => !names.includes(name))
    .map((name) => ({ field: `${at}${name}`, description: `is not ${what} (${names.join(", ")})` }));
}
