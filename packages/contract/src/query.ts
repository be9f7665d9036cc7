/**
 * The query string as the stub server reads it: node:querystring with every pair (the stub's Express "query
 * parser" is `parseQueryString`), then express-openapi-validator's bracket notation (`a[b]=1` becomes
 * `a: { b: "1" }`, `[x]=1` is dropped), so that the compiled contract validates the same values the stub validates.
 */
import { parse as nodeQueryParse } from "node:querystring";
import { parse as parseQs } from "qs";

/** Parsed query values by name. */
export type Query = Record<string, unknown>;

/** A query string read once: the names as sent, and the values the parameter validators see. */
export interface ParsedQuery {
  names: string[];
  values: Query;
}

/**
 * Parses a query string with node:querystring, every pair of it. node:querystring stops at 1,000 pairs by default
 * (empty ones count), which hid whatever followed from every check while the whole URL went on to the backend; a
 * request target is already bounded by Node's 16 KiB header limit. Also the stub's Express "query parser".
 */
export function parseQueryString(search: string): Query {
  return nodeQueryParse(search, undefined, undefined, { maxKeys: 0 });
}

/** The query string of a request target (after the first `?`), or "" when there is none. */
export function searchOf(url: string): string {
  const at = url.indexOf("?");
  return at < 0 ? "" : url.slice(at + 1);
}

/** The path of a request target (before the first `?`). */
export function pathOf(url: string): string {
  const at = url.indexOf("?");
  return at < 0 ? url : url.slice(0, at);
}

/** The names of the query parameters as sent, for the check of undeclared names. */
export function queryNames(search: string): string[] {
  return search === "" ? [] : Object.keys(parseQueryString(search));
}

/**
 * Parses a query string into its names as sent and the values the parameter validators see. Names with a `[`
 * that the operation does not declare literally (`literal`) are read as qs bracket notation, as
 * express-openapi-validator does.
 */
export function parseQuery(search: string, literal: ReadonlySet<string> = new Set()): ParsedQuery {
  if (search === "") return { names: [], values: {} };
  const query: Query = { ...parseQueryString(search) };
  const names = Object.keys(query);
  for (const key of names) {
    if (!key.includes("[") || literal.has(key)) continue;
    const name = key.split("[")[0] ?? "";
    const parsed = parseQs(`${key}=${String(query[key])}`) as Query;
    const value = parsed[name];
    if (value !== undefined) {
      const current = query[name];
      const merge =
        typeof current === "object" &&
        current !== null &&
        typeof value === "object" &&
        value !== null &&
        !Array.isArray(value);
      query[name] = merge ? { ...current, ...value } : value;
    }
    delete query[key];
  }
  return { names, values: query };
}
