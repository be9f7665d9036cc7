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

/** The table of a word for the Knuth–Morris–Pratt search: the longest proper border of each prefix. */
function borders(word: string): number[] {
  const table = [0];
  let k = 0;
  for (let i = 1; i < word.length; i++) {
    while (k > 0 && word[i] !== word[k]) k = table[k - 1] ?? 0;
    if (word[i] === word[k]) k++;
    table.push(k);
  }
  return table;
}

/** Where `word` first occurs whole in `text` between `from` and `end`, or -1; time in proportion to the text read and the word. */
function indexBetween(text: string, word: string, from: number, end: number): number {
  if (word === "") return from;
  const table = borders(word);
  let k = 0;
  for (let i = from; i < end; i++) {
    while (k > 0 && text[i] !== word[k]) k = table[k - 1] ?? 0;
    if (text[i] === word[k]) k++;
    if (k === word.length) return i - word.length + 1;
  }
  return -1;
}

/**
 * Whether `text` matches `pattern`, where `*` stands for any characters (none too). Each piece between stars is
 * taken at its first place after the last (which finds a match whenever there is one), so that the time is linear in
 * the lengths of both, whatever the pattern: a regular expression of many `.*` backtracks for hours on a long path.
 */
export function globMatch(pattern: string, text: string): boolean {
  const pieces = pattern.split("*");
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0] ?? "";
  const last = pieces[pieces.length - 1] ?? "";
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = indexBetween(text, piece, at, end);
    if (found < 0) return false;
    at = found + piece.length;
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
  if (match.path !== undefined && !globMatch(match.path, request.path))
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
