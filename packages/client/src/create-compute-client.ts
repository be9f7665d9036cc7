import type { Client, ClientOptions, ClientPathsWithMethod, FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import createClient from "openapi-fetch";
import { checkedBaseUrl } from "./base-url.js";
import { type ApiKey, auth } from "./middleware/auth.js";
import { networkError } from "./middleware/network-error.js";
import { type RetryOptions, retry } from "./middleware/retry.js";
import { timeout } from "./middleware/timeout.js";
import type { paths } from "./schema.js";

/** Options of {@link createComputeClient}. */
export interface ComputeClientOptions {
  /**
   * Where the service is: its origin, such as `https://api.example.com`, without `/v1` (the spec's paths start with
   * it). Anything but an http(s) URL, and a URL ending in `/v1`, is refused at creation.
   */
  baseUrl: string;
  /**
   * The API key, or a function returning the current one; a function is asked once per request. `undefined` is
   * allowed by the type so that an environment variable can be passed as it is: a missing or invalid key is
   * refused at creation with a TypeError, and a function's result on each request, before anything is sent.
   */
  apiKey: ApiKey | undefined;
  /** The fetch to use instead of `globalThis.fetch` (tests inject one; so can a proxy or a tracer). */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request; `Authorization` is always the API key's. */
  headers?: ClientOptions["headers"];
  /** Time a call may take, retries and their waits included, in milliseconds (default 30 000; 0 for none). */
  timeoutMs?: number;
  /** How a GET answered with 429 or 503 is retried, or `false` for never. PATCH and POST are never retried. */
  retry?: RetryOptions | false;
}

type Method = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
type Init<Path extends keyof paths, M extends Method> = MaybeOptionalInit<paths[Path], M>;
type Operation<Path extends keyof paths, M extends Method> = Extract<paths[Path][M], Record<string, unknown>>;

// openapi-fetch infers the whole second argument as its own type parameter, and an inferred object literal is
// never checked for excess properties: a misspelled body field would compile. Typing that argument from the
// path alone restores the check; the runtime client is openapi-fetch's own.
type StrictMethod<M extends Method> = <Path extends ClientPathsWithMethod<Client<paths>, M>>(
  url: Path,
  ...init: undefined extends Init<Path, M> ? [init?: Init<Path, M>] : [init: Init<Path, M>]
) => Promise<FetchResponse<Operation<Path, M>, Init<Path, M>, `${string}/${string}`>>;

/** The openapi-fetch client typed with the spec's `paths`: `client.GET(path, { params })` → `{ data, error, response }`. */
export type ComputeClient = Omit<Client<paths>, Uppercase<Method>> & { [M in Method as Uppercase<M>]: StrictMethod<M> };

/**
 * A client for the compute service: openapi-fetch over the generated `paths`, with the auth, timeout and retry
 * middleware registered in that order (so the retry middleware sees responses first), then the network error's.
 * A bad `baseUrl`, `apiKey`, `timeoutMs` or `retry` is refused here, before any call.
 */
export function createComputeClient(options: ComputeClientOptions): ComputeClient {
  const { baseUrl, apiKey, fetch, headers, timeoutMs = 30_000, retry: retryOptions = {} } = options;
  const client = createClient<paths>({
    baseUrl: checkedBaseUrl(baseUrl),
    ...(fetch && { fetch }),
    ...(headers && { headers }),
  });
  client.use(auth(apiKey));
  if (timeoutMs !== 0) client.use(timeout(timeoutMs));
  if (retryOptions !== false) client.use(retry(retryOptions));
  client.use(networkError());
  return client as ComputeClient;
}
