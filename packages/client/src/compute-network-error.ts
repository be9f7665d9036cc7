/** Where a call went that got no response. */
export interface ComputeNetworkErrorInit {
  /** The client's base URL. */
  baseUrl: string;
  /** The HTTP method, such as `GET`. */
  method: string;
  /** The spec path of the call as written, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  path: string;
  /** What the fetch in use rejected with. */
  cause: unknown;
}

/**
 * A call that got no response at all: the service refused the connection, its name did not resolve, TLS failed,
 * the connection was reset, or the fetch in use failed otherwise. It is thrown, unlike an HTTP failure, which is
 * returned. It names where the call went, never the request's headers, so the API key is not in it.
 */
export class ComputeNetworkError extends Error {
  override readonly name = "ComputeNetworkError";
  /** The client's base URL, where the service was expected. */
  readonly baseUrl: string;
  /** The HTTP method of the call. */
  readonly method: string;
  /** The spec path of the call as written, such as `/v1/resources/search` (parameters not filled in). */
  readonly path: string;
  /** The runtime's code for the failure, such as `ECONNREFUSED` or `ENOTFOUND`, when it gives one. */
  readonly code: string | undefined;

  constructor({ baseUrl, method, path, cause }: ComputeNetworkErrorInit) {
    const code = codeOf(cause);
    const why = code ?? (cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause));
    super(`compute-api client: ${method} ${path} got no response from ${baseUrl} (${why})`, { cause });
    this.baseUrl = baseUrl;
    this.method = method;
    this.path = path;
    this.code = code;
  }
}

// Node's fetch rejects with `TypeError: fetch failed` whose cause (sometimes the cause's cause, or the errors of an
// AggregateError when several addresses were tried) carries the system code.
function codeOf(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  if ("code" in error && typeof error.code === "string" && /^[A-Z][A-Z0-9_]*$/.test(error.code)) return error.code;
  const inner = [...("cause" in error ? [error.cause] : []), ...(error instanceof AggregateError ? error.errors : [])];
  for (const next of inner) {
    const code = codeOf(next, depth + 1);
    if (code !== undefined) return code;
  }
  return undefined;
}
