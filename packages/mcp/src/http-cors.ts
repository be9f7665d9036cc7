/**
 * CORS at `/mcp`, for MCP clients in a browser page, with the `cors` package (as the runtime's CORS of the stub and
 * the gateway). It runs after the Origin check, so only an allowed origin (a loopback one on a loopback address,
 * or one of `--cors-origins`) gets here: its origin is reflected, with `Vary: Origin`. A preflight is answered 204
 * before the client token is asked for (a browser sends no `Authorization` with it), with the methods and request
 * headers the Streamable HTTP transport uses; answers expose `Mcp-Session-Id` (the client must send it back) and
 * `WWW-Authenticate` (a 401's challenge).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import cors from "cors";

/** What a browser client of Streamable HTTP sends: POST its messages, GET a stream, DELETE a session. */
export const corsMethods = ["GET", "POST", "DELETE"];
/** The request headers of the transport beyond the CORS-safelisted ones. */
export const corsRequestHeaders = [
  "Content-Type",
  "Authorization",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Last-Event-ID",
];
/** The response headers a page's script may read. */
export const corsExposedHeaders = ["Mcp-Session-Id", "WWW-Authenticate"];

const handler = cors({
  origin: true,
  methods: corsMethods,
  allowedHeaders: corsRequestHeaders,
  exposedHeaders: corsExposedHeaders,
  maxAge: 600,
}) as (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * Adds the CORS headers to the answer of a request from an allowed origin; answers a preflight (`OPTIONS`), and
 * then returns true.
 */
export function answerCors(req: IncomingMessage, res: ServerResponse): boolean {
  // With static options the package decides at once: it ends a preflight, and calls `next` for anything else.
  handler(req, res, () => {});
  return req.method === "OPTIONS";
}
