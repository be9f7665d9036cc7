/**
 * Redaction of anything of the form of an API key in a text: the prefix (`cak_`) and the characters a key may hold
 * after it, in any case and with any character percent-encoded (`cak%5F…`, `%63ak_…`), as a path, a query or a
 * header may carry it. The one implementation: the journal of the stub, the request lines of every command.
 */
import { apiKeyPrefix } from "./api-keys.js";

/** What stands for a value that is not kept. */
export const redacted = "[redacted]";

/** A character as itself or percent-encoded (the pattern is matched ignoring case: `%5F` and `%5f`, `C` and `c`). */
const spelled = (char: string) =>
  `(?:${char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|%${char.charCodeAt(0).toString(16).padStart(2, "0")})`;

/**
 * A key's form: the prefix, then what base64url and base64 hold (and `.`, `~`), each possibly percent-encoded. The
 * alternatives start differently (`%` or not), so the match never backtracks.
 */
const keyForm = new RegExp(`${[...apiKeyPrefix].map(spelled).join("")}(?:[A-Za-z0-9._~+/=-]|%[0-9A-Fa-f]{2})*`, "gi");

/** The text with everything of a key's form in it replaced by `[redacted]`. */
export function redactKeys(text: string): string {
  // A key's form holds its prefix's `_`, as it is or as `%5F`: a text with neither holds none (most paths).
  return text.includes("_") || text.includes("%") ? text.replace(keyForm, redacted) : text;
}
