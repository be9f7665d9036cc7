/**
 * Redaction of anything of the form of an API key in a text: the prefix (`cak_`) and the characters a key may hold
 * after it, in any case and with any character percent-encoded (`cak%5F…`, `%63ak_…`), as a path, a query, a
 * header or a body may carry it. The one implementation.
 */
import { apiKeyPrefix } from "./api-keys.js";

/** What stands for a value that is not kept. */
export const redacted = "[redacted]";

/** A character as a URL spells it percent-encoded: `%5F` (matched in either case). */
const percentEncoded = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/**
 * A key's form: the prefix, each of its characters in either case or as the escape of either case (`cak%5F…`,
 * `CAK_…`, `%63%41k%5f…`), then what base64url and base64 hold (and `.`, `~`), each possibly percent-encoded.
 * The alternatives start differently (`%` or not), so the match never backtracks.
 */
const prefixForm = [...apiKeyPrefix]
  .map((c) => `(?:${c}|${[...new Set([c.toLowerCase(), c.toUpperCase()].map(percentEncoded))].join("|")})`)
  .join("");
const keyForm = new RegExp(`${prefixForm}(?:[A-Za-z0-9._~+/=-]|%[0-9a-f]{2})*`, "gi");

/**
 * A value with everything of a key's form in it replaced by `[redacted]`, at any depth: a string, and in an array or
 * object each string and each property name (a key used as a field name). `also` redacts more of each string first
 * (a key the caller knows, a whole string that is one). The stub's journal, the gateway's recording and every
 * command's request lines share it.
 */
export function redactKeys<T>(value: T, also: (text: string) => string = (text) => text): T {
  if (typeof value === "string") return redactText(also(value)) as T;
  if (Array.isArray(value)) return value.map((item) => redactKeys(item, also)) as T;
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [redactKeys(name, also), redactKeys(item, also)]),
    ) as T;
  return value;
}

/** The text with everything of a key's form in it replaced. */
function redactText(text: string): string {
  // A key's form holds its prefix's `_`, as it is or as `%5F`: a text with neither holds none (most paths).
  return text.includes("_") || text.includes("%") ? text.replace(keyForm, redacted) : text;
}
