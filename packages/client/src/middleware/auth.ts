import type { Middleware } from "openapi-fetch";

/** An API key, or a function that returns the current one (called once per request, so keys can rotate). */
export type ApiKey = string | (() => string | Promise<string>);

// RFC 6750 b64token. Checking it here matters beyond politeness: `Headers.set` rejects a value with a line
// break by throwing an error that quotes the whole value, key included.
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

function checked(key: unknown): string {
  if (typeof key !== "string" || !BEARER_TOKEN.test(key)) {
    throw new TypeError("compute-api client: the API key is missing or is not a valid Bearer token");
  }
  return key;
}

/**
 * Sends `Authorization: Bearer <key>` on every request. Errors it raises never contain the key.
 * @see #/components/securitySchemes
 */
export function auth(apiKey: ApiKey): Middleware {
  if (typeof apiKey === "string") checked(apiKey);
  return {
    async onRequest({ request }) {
      const key = typeof apiKey === "function" ? checked(await apiKey()) : apiKey;
      request.headers.set("Authorization", `Bearer ${key}`);
      return request;
    },
  };
}
