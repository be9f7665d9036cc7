import type { Middleware } from "openapi-fetch";

/** An API key, or a function that returns the current one (called once per request, so keys can rotate). */
export type ApiKey = string | (() => string | Promise<string>);

// RFC 6750 b64token. Checking it here matters beyond politeness: `Headers.set` rejects a value with a line
// break by throwing an error that quotes the whole value, key included.
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

// What a key that is not a string is called in an error: its kind only, never its value.
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "undefined" ? "undefined" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

// Every message names the problem and what to pass instead, and none quotes the key.
function checked(key: unknown, source: string): string {
  if (key === undefined || key === null || key === "") {
    const given = key === "" ? "an empty string" : kindOf(key);
    throw new TypeError(
      `compute-api client: the API key is missing (${source} is ${given}); is it read from an environment ` +
        "variable that is not set?",
    );
  }
  if (typeof key !== "string") {
    throw new TypeError(`compute-api client: the API key must be a string (${source} is ${kindOf(key)})`);
  }
  if (!BEARER_TOKEN.test(key)) {
    throw new TypeError(
      `compute-api client: the API key is not a valid Bearer token (${source} may hold only A-Z a-z 0-9 ` +
        "- . _ ~ + /, then = at the end)",
    );
  }
  return key;
}

/**
 * Sends `Authorization: Bearer <key>` on every request. A key that is not a non-empty Bearer token, or a function
 * returning one, is refused at once with a TypeError, so that nothing is ever sent as `Bearer undefined`; a
 * function's result is checked on each request. Errors it raises never contain the key.
 * @see #/components/securitySchemes
 */
export function auth(apiKey: ApiKey | undefined): Middleware {
  if (typeof apiKey !== "function") checked(apiKey, "apiKey");
  return {
    async onRequest({ request }) {
      const key = typeof apiKey === "function" ? checked(await apiKey(), "what apiKey() returned") : (apiKey as string);
      request.headers.set("Authorization", `Bearer ${key}`);
      return request;
    },
  };
}
