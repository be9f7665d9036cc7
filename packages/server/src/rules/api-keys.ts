/** API key values: how they are made and how they are kept (as SHA-256 only). */
import { createHash, randomBytes } from "node:crypto";

/** The prefix that makes a key of this service recognizable (for secret scanners and for people). */
export const apiKeyPrefix = "cak_";

/** A new key: the prefix and 32 random bytes, base64url. */
export function newApiKey(): string {
  return apiKeyPrefix + randomBytes(32).toString("base64url");
}

/** The SHA-256 of a key in lowercase hex: the only form in which an implementation keeps a key. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}
