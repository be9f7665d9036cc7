/**
 * The query string as the stub server reads it: node:querystring with every pair (the stub's Express "query
 * parser" is `parseQueryString`), then express-openapi-validator's bracket notation (`a[b]=1` becomes
 * `a: { b: "1" }`, `[x]=1` is dropped), so that the compiled contract validates the same values the stub validates.
 */
import { parse as parseQs } from "qs";

/**
 * node:querystring's parse, taken rather than imported so that the compiled contract bundles for a browser (the
 * stub's MSW handlers); undefined where there is no Node.
 */
const nodeQueryParse = globalThis.process?.getBuiltinModule?.("node:querystring")?.parse;

/**
 * Where there is no Node: the pairs of URLSearchParams (WHATWG's application/x-www-form-urlencoded parser), in
 * node:querystring's shape (a repeated name's values in an array, no prototype). On an ASCII query string — every
 * one a fetch sends, browsers and MSW percent-encode the rest — it gives what node:querystring gives, `+`, malformed
 * escapes and empty pairs included (300,000 random strings compared); a leading `?` is kept as part of a name, as
 * node:querystring keeps it.
 */
export function webQueryParse(search: string): Query {
  const query: Query = Object.create(null);
  for (const [name, value] of new URLSearchParams(`&${search}`)) {
    const current = query[name];
    if (current === undefined) query[name] = value;
    else if (Array.isArray(current)) current.push(value);
    else query[name] = [current, value];
  }
  return query;
}

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
  return nodeQueryParse ? nodeQueryParse(search, undefined, undefined, { maxKeys: 0 }) : webQueryParse(search);
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
