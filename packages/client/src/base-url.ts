// Every path of the spec starts with /v1, and openapi-fetch appends it to the base URL as written.
const ENDS_IN_V1 = /\/v1\/*$/i;
const EXAMPLE = '"https://api.example.com" or "http://127.0.0.1:4010"';

/**
 * `baseUrl` as given, when it is an http(s) URL of the service's origin (a path prefix in front of `/v1` is
 * allowed); otherwise a TypeError saying what to give instead. A base ending in `/v1` is refused rather than
 * trimmed, because every call through it would otherwise get 404 for `/v1/v1/…` and nothing would say why.
 */
export function checkedBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" || baseUrl === "") {
    const given = baseUrl === "" ? "an empty string" : baseUrl === null ? "null" : typeof baseUrl;
    throw new TypeError(`compute-api client: baseUrl is missing (it is ${given}); give the service's URL, ${EXAMPLE}`);
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`compute-api client: baseUrl ${JSON.stringify(baseUrl)} is not a URL; give one, ${EXAMPLE}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(
      `compute-api client: baseUrl ${JSON.stringify(baseUrl)} is not an http or https URL; give the scheme, ${EXAMPLE}`,
    );
  }
  // Not quoted: the URL holds a password. fetch would refuse it on every call anyway.
  if (url.username !== "" || url.password !== "") {
    throw new TypeError("compute-api client: baseUrl must not hold a user name or password; the key goes in apiKey");
  }
  if (url.search !== "" || url.hash !== "") {
    throw new TypeError(`compute-api client: baseUrl ${JSON.stringify(baseUrl)} must not have a query or fragment`);
  }
  if (ENDS_IN_V1.test(url.pathname)) {
    const origin = `${url.origin}${url.pathname.replace(ENDS_IN_V1, "")}`;
    throw new TypeError(
      `compute-api client: baseUrl ${JSON.stringify(baseUrl)} ends in /v1, but the client's paths start with /v1 ` +
        `already (calls would go to /v1/v1/… and get 404); give the origin, ${JSON.stringify(origin)}`,
    );
  }
  return baseUrl;
}
