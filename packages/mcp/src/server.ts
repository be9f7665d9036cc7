/**
 * The MCP server of the tools, on the SDK's low-level `Server`: its tools are the spec's JSON Schemas as generated,
 * served as they are (the SDK's `McpServer.registerTool` takes zod schemas and would list its own rendering of them).
 */

import { packageVersion } from "@compute-api/runtime/cli";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { anySignal } from "./signals.js";
import { statusMeanings } from "./tool-advice.js";
import type { ToolRunner } from "./tool-runner.js";

const version = packageVersion(import.meta.url);

/**
 * What the server tells a client when it connects: its tools, named as the spec's operations, and once for all of
 * them the statuses a call may fail with (each tool's operation documents its own; a tool's description leaves
 * them out).
 */
function instructionsOf(runner: ToolRunner): string {
  const tools = runner.tools.map((tool) => `${tool.name} (${tool.title ?? tool.name})`).join("; ");
  const statuses = [...new Set(runner.generated.flatMap((t) => t.operation.failures))]
    .sort((a, b) => a - b)
    .map((status) => `${status} ${statusMeanings[status] ?? "a failure"}`)
    .join("; ");
  return (
    `Tools for the compute service's API, one per operation of its OpenAPI document: ${tools}. They act with ` +
    "the access of the API key this server was started with. Each tool's description gives its rules. A failed " +
    "call is an error result (isError) that names the status, the reason, the arguments at fault and a next step " +
    `that works. The statuses: ${statuses}.`
  );
}

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * Aborts this server's tool calls besides the protocol's own cancellation: the HTTP transport's, whose
   * `notifications/cancelled` reaches a stateless server in another request (`http-cancel.ts`).
   */
  signal?: AbortSignal | undefined;
}

/** A new MCP server (one per connection or HTTP request) over the shared runner. */
export function createMcpServer(runner: ToolRunner, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: "compute-mcp", title: "Compute service", version },
    { capabilities: { tools: { listChanged: false } }, instructions: instructionsOf(runner) },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: runner.tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    if (!runner.has(name)) {
      // The protocol's answer to a tool that does not exist; anything a tool does is a result instead.
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}; tools/list names the tools`);
    }
    return runner.call(name, args, anySignal(extra.signal, options.signal));
  });
  return server;
}
