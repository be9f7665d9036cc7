/**
 * CORS, the one way the stub server and the gateway answer browsers: the `cors` package with the allowed
 * origins given on the command line, the spec's methods, and the response headers a front end may read.
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type OpenApiDocument, specOperations } from "@compute-api/contract";
import cors from "cors";

/** Response headers a browser may read: the request id, `Retry-After`, and the gateway's violation count. */
export const exposedHeaders = ["x-request-id", "Retry-After", "x-contract-violations"];

/** A CORS middleware (it works on plain node:http requests too): answers preflights, adds headers to the rest. */
export type CorsHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Parses a `--cors-origins` value: comma-separated origins such as `http://localhost:5173`, or `*` for any;
 * appended to `previous` (the flag may be repeated). Throws a readable error for anything that is not an origin.
 */
export function parseOrigins(value: string, previous: string[] = []): string[] {
  const list = value
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    if (origin !== "*" && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new Error(`'${origin}' is not an origin such as http://localhost:5173 (scheme, host, optional port) or *.`);
    }
  }
  return [...previous, ...list];
}

/** Whether a request is a CORS preflight: `OPTIONS` with `Access-Control-Request-Method`. */
export const isPreflight = (req: IncomingMessage): boolean =>
  req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;

/**
 * Creates the CORS middleware for the allowed origins (`*`: any) and the methods of the spec's operations;
 * preflights are answered 204, cached 10 minutes.
 */
export function corsHandler(origins: readonly string[], spec: OpenApiDocument): CorsHandler {
  const methods = [...new Set(specOperations(spec).map((o) => o.method.toUpperCase()))];
  const handler = cors({
    origin: origins.includes("*") ? "*" : [...origins],
    methods,
    exposedHeaders,
    maxAge: 600,
  }) as CorsHandler;
  if (!origins.includes("*")) return handler;
  // With any origin allowed, every request but OPTIONS gets the same headers, whatever it sends: the package
  // writes them once here, and each request gets the copy.
  const fixed = headersOf(handler);
  return (req, res, next) => {
    if (req.method === "OPTIONS") return handler(req, res, next);
    for (const [name, value] of fixed) res.setHeader(name, value);
    next();
  };
}

/** The headers a CORS handler sets on a GET that sends no header at all. */
function headersOf(handler: CorsHandler): [string, string | number | readonly string[]][] {
  const set: [string, string | number | readonly string[]][] = [];
  const res = {
    getHeader: () => undefined,
    setHeader: (name: string, value: string | number | readonly string[]) => set.push([name, value]),
  };
  handler({ method: "GET", headers: {} } as IncomingMessage, res as unknown as ServerResponse, () => {});
  return set;
}
