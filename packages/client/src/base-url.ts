/**
 * The checks of a URL given for the service (the client's `baseUrl`, and the `--base-url` and `--upstream` flags of
 * the project's commands, which share these sentences): each problem is a phrase that follows the URL's name.
 */

// Every path of the spec starts with /v1, and openapi-fetch appends it to the base URL as written.
const ENDS_IN_V1 = /\/v1\/*$/i;

/** What a URL must look like: its schemes (`http`, `https`) and an example of one. */
export interface UrlForm {
  schemes: readonly string[];
  example: string;
}

/** The service's base URL: http or https. */
export const serviceUrlForm: UrlForm = { schemes: ["http", "https"], example: "http://127.0.0.1:4010" };

/** A URL as given, quoted for a message: its user name and password, if any, replaced by `***`. */
export function quotedUrl(value: string): string {
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@?#\s]*@/i, "$1***@"));
}

/**
 * What is wrong with `value` as a URL of one of the form's schemes, as a phrase that follows its name (`must be an
 * http:// or https:// URL, such as http://127.0.0.1:4010; got "127.0.0.1:4010"`); undefined when it is one.
 */
export function urlSchemeProblem(value: string, { schemes, example }: UrlForm): string | undefined {
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol.slice(0, -1);
  } catch {
    protocol = undefined;
  }
  // `localhost:4010` parses as the scheme `localhost:`: a scheme is only one followed by `//` here.
  if (protocol !== undefined && schemes.includes(protocol.toLowerCase()) && /^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return undefined;
  const names = schemes.map((scheme) => `${scheme}://`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names.join("");
  // "an http://", "a postgres://": as the first scheme's name is read out.
  const article = /^[aehio]/i.test(schemes[0] ?? "") ? "an" : "a";
  return `must be ${article} ${list} URL, such as ${example}; got ${quotedUrl(value)}`;
}

/**
 * What is wrong with `value` as the service's base URL, as a phrase that follows its name; undefined when it is an
 * http(s) URL of the service's origin (a path prefix in front of `/v1` is allowed). A base ending in `/v1` is refused
 * rather than trimmed, because every call through it would otherwise get 404 for `/v1/v1/…` and nothing would say why.
 */
export function baseUrlProblem(value: string): string | undefined {
  const scheme = urlSchemeProblem(value, serviceUrlForm);
  if (scheme) return scheme;
  const url = new URL(value);
  // Not quoted: the URL holds a password.
  if (url.username !== "" || url.password !== "") return "must not hold a user name or password";
  if (url.search !== "" || url.hash !== "") return `must not have a query or fragment; got ${quotedUrl(value)}`;
  if (ENDS_IN_V1.test(url.pathname)) {
    const origin = `${url.origin}${url.pathname.replace(ENDS_IN_V1, "")}`;
    return (
      `ends in /v1 (${quotedUrl(value)}), but the API's paths start with /v1 already (calls would go to /v1/v1/… ` +
      `and get 404); give the origin, ${quotedUrl(origin)}`
    );
  }
  return undefined;
}

/**
 * `baseUrl` as given, when `baseUrlProblem` finds nothing wrong with it; otherwise a TypeError saying what to give
 * instead.
 */
export function checkedBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" || baseUrl === "") {
    const given = baseUrl === "" ? "an empty string" : baseUrl === null ? "null" : typeof baseUrl;
    throw new TypeError(
      `compute-api client: baseUrl is missing (it is ${given}); give the service's URL, such as ${serviceUrlForm.example}`,
    );
  }
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new TypeError(`compute-api client: baseUrl ${problem}`);
  return baseUrl;
}
