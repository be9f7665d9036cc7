/**
 * The Streamable HTTP transport at `/mcp`, stateless: each POST gets a new MCP server and transport over the
 * shared tool runner, so that any instance behind a load balancer can answer any request and nothing is held
 * between requests. Before the SDK sees a request, it is checked as the MCP specification's security guidance asks:
 *
 * 1. Host: on a loopback address only `localhost`, `127.0.0.1` and `[::1]` (DNS rebinding); 403 otherwise.
 * 2. Origin, when sent (browsers send it): a loopback origin on a loopback address, or one of `--cors-origins`;
 *    403 otherwise. An allowed origin gets CORS headers, and its preflight is answered here (`http-cors.ts`).
 * 3. The client's token, when one is configured (`--auth-token`): `Authorization: Bearer <token>`, compared in
 *    constant time; 401 with `WWW-Authenticate: Bearer` otherwise. This token is for compute-mcp only and is never
 *    sent on: the compute service is called with the key compute-mcp was started with (no token passthrough).
 * 4. One JSON-RPC message per POST: a batch is answered with an invalid-request error (`http-message.ts`).
 *
 * A `notifications/cancelled` aborts the tool call it names, which another POST runs (`http-cancel.ts`).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { hostOriginCheck, type Logger, requestLogger } from "@compute-api/runtime";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { inFlightCalls } from "./http-cancel.js";
import { answerCors } from "./http-cors.js";
import { readMessage, rpcCodes, rpcError } from "./http-message.js";
import { createMcpServer } from "./server.js";
import type { ToolRunner } from "./tool-runner.js";

/** The path of the MCP endpoint. */
export const mcpPath = "/mcp";
/** The path of the health check: 200 while compute-mcp is up, without a token (after the Host and Origin checks). */
export const healthPath = "/healthz";

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
  rpcError(res, status, rpcCodes.server, message, headers);
}

/** The request listener of the HTTP transport. */
export function createHttpHandler(options: HttpOptions): RequestListener {
  const { runner, logger, authToken, loopback, allowedOrigins = [] } = options;
  const expected = authToken === undefined ? undefined : digest(authToken);
  const log = requestLogger(logger);
  const hostOrigin = hostOriginCheck({ loopback, allowedOrigins });
  const calls = inFlightCalls();

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? "").split("?")[0];
    if (path !== mcpPath && path !== healthPath) {
      return refuse(res, 404, `not found: the MCP endpoint is ${mcpPath}`);
    }
    const refused = hostOrigin(req.headers);
    if (refused === "host")
      return refuse(res, 403, "Host not allowed: this server answers only requests for localhost");
    if (refused === "origin") return refuse(res, 403, "Origin not allowed: add it with --cors-origins");
    const origin = req.headers.origin;
    // A probe (a container's, Kubernetes') sends no token: it learns only that compute-mcp is up.
    if (path === healthPath) {
      if (req.method !== "GET" && req.method !== "HEAD")
        return refuse(res, 405, "method not allowed", { allow: "GET" });
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(req.method === "GET" ? '{"status":"ok"}' : undefined);
    }
    // A browser's request from an allowed origin: its CORS headers, and its preflight answered before the token.
    if (origin !== undefined && answerCors(req, res)) return;
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
    // One message per POST: a batch is refused before any of its calls runs.
    const posted = await readMessage(req, res);
    if ("refused" in posted) {
      const { status, code, message } = posted.refused;
      return rpcError(res, status, code, message);
    }
    const message = "message" in posted ? posted.message : undefined;
    const followed = calls.follow(req, res, message);
    const server = createMcpServer(runner, { signal: followed.signal });
    // No sessionIdGenerator: stateless. JSON answers: a tool call sends no notification before its result.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on("close", () => {
      followed.release();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
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
