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
