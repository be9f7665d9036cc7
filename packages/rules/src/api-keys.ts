/**
 * API key values: how they are made and how they are kept (as SHA-256 only). Without Node built-ins (the Web
 * Crypto API's random values, @noble/hashes's SHA-256, which is synchronous where Web Crypto's digest is not), so
 * that the stub's store runs in a browser, behind its MSW handlers, as it runs in Node.
 */
import { secretResponses } from "@compute-api/spec/facts";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** The prefix that makes a key of this service recognizable (for secret scanners and for people). */
export const apiKeyPrefix = "cak_";

/**
 * Operations whose 200 body holds a secret (the new API key, `x-secret: true` in the spec): answered
 * `Cache-Control: no-store`.
 */
export const secretBodies: ReadonlySet<string> = new Set(Object.keys(secretResponses));

/** Bytes in base64url without padding (RFC 4648 §5), as Node's `Buffer.toString("base64url")` writes them. */
function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A new key: the prefix and 32 random bytes, base64url. */
export function newApiKey(): string {
  return apiKeyPrefix + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The SHA-256 of a key in lowercase hex: the only form in which an implementation keeps a key. */
export function hashApiKey(key: string): string {
  return bytesToHex(sha256(utf8ToBytes(key)));
}

/** What stands for a key (or anything that is not kept) where one was. */
const redacted = "[redacted]";

/** A character as a URL spells it percent-encoded: `%5F` (matched in either case). */
const percentEncoded = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/**
 * Anything of the form of a key of this service, however a text spells it: the prefix in any case, any of its
 * characters percent-encoded in either case of the escape (`cak%5F…`, `CAK_…`, `%63%41k%5f…`), then the characters
 * of a key, percent-encoded ones included. Linear: the alternatives of the tail are disjoint.
 */
const prefixForm = [...apiKeyPrefix]
  .map((c) => `(?:${c}|${[...new Set([c.toLowerCase(), c.toUpperCase()].map(percentEncoded))].join("|")})`)
  .join("");
const keyForm = new RegExp(`${prefixForm}(?:[A-Za-z0-9._~+/=-]|%[0-9a-f]{2})*`, "gi");

/**
 * A value with every key in it replaced by `[redacted]`, at any depth: in each string, and in each object's
 * property names (a key used as a field name) as in its values. `also` redacts more of each string first (a key
 * the caller knows, a whole string that is one): the journal of the stub and the gateway's recording share this.
 */
export function redactKeys<T>(value: T, also: (text: string) => string = (text) => text): T {
  if (typeof value === "string") return also(value).replace(keyForm, redacted) as T;
  if (Array.isArray(value)) return value.map((item) => redactKeys(item, also)) as T;
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [redactKeys(name, also), redactKeys(item, also)]),
    ) as T;
  return value;
}
