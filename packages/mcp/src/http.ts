/**
 * The Streamable HTTP transport at `/mcp`, stateless: each POST gets a new MCP server and transport over the
 * shared tool runner, so that any instance behind a load balancer can answer any request and nothing is held
 * between requests. Before the SDK sees a request, it is checked as the MCP specification's security guidance asks:
 *
 * 1. Host: on a loopback address only `localhost`, `127.0.0.1` and `[::1]` (DNS rebinding); 403 otherwise.
 * 2. Origin, when sent (browsers send it): a loopback origin on a loopback address, or one of `--cors-origins`;
 *    403 otherwise.
 * 3. The client's token, when one is configured (`--auth-token`): `Authorization: Bearer <token>`, compared in
 *    constant time; 401 with `WWW-Authenticate: Bearer` otherwise. This token is for compute-mcp only and is never
 *    sent on: the compute service is called with the key compute-mcp was started with (no token passthrough).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { hostOriginCheck, type Logger, requestLogger } from "@compute-api/runtime";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer } from "./server.js";
import type { ToolRunner } from "./tool-runner.js";

/** The path of the MCP endpoint. */
export const mcpPath = "/mcp";

/** Options of {@link createHttpHandler}. */
export interface HttpOptions {
  runner: ToolRunner;
  logger: Logger;
  /** The token clients must send as `Authorization: Bearer …`; undefined: none (only on a loopback address). */
  authToken?: string | undefined;
  /** Whether the server listens on a loopback address only: then the Host header must name one. */
  loopback: boolean;
  /** Origins allowed besides loopback ones; `*` allows any. */
  allowedOrigins?: string[] | undefined;
}

/** Whether `host` (an address to listen on) is a loopback one. */
export { isLoopback } from "@compute-api/runtime";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** A JSON-RPC error body, as the SDK answers transport-level refusals. */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The request listener of the HTTP transport. */
export function createHttpHandler(options: HttpOptions): RequestListener {
  const { runner, logger, authToken, loopback, allowedOrigins = [] } = options;
  const expected = authToken === undefined ? undefined : digest(authToken);
  const log = requestLogger(logger);
  const hostOrigin = hostOriginCheck({ loopback, allowedOrigins });

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? "").split("?")[0];
    if (path !== mcpPath) return refuse(res, 404, `not found: the MCP endpoint is ${mcpPath}`);
    const refused = hostOrigin(req.headers);
    if (refused === "host")
      return refuse(res, 403, "Host not allowed: this server answers only requests for localhost");
    if (refused === "origin") return refuse(res, 403, "Origin not allowed: add it with --allowed-origins");
    if (expected) {
      const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
      if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
        return refuse(res, 401, "missing or wrong bearer token for this MCP server", {
          "www-authenticate": 'Bearer realm="compute-mcp"',
        });
      }
    }
    // Stateless: no stream for a GET and no session to end with a DELETE.
    if (req.method !== "POST")
      return refuse(res, 405, "method not allowed: send JSON-RPC with POST", { allow: "POST" });
    const server = createMcpServer(runner);
    // No sessionIdGenerator: stateless. JSON answers: a tool call sends no notification before its result.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  return (req, res) => {
    log(req, res);
    serve(req, res).catch((error: unknown) => {
      logger.error({ err: error }, "MCP request failed");
      if (!res.headersSent) refuse(res, 500, "internal error of compute-mcp");
      else res.destroy();
    });
  };
}
