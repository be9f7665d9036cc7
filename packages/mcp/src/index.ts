/**
 * @compute-api/mcp: a Model Context Protocol server for the compute service, one tool per operation of its
 * OpenAPI document. The command is `compute-mcp`; embedding it: `createToolRunner` (the tools and their calls),
 * `createMcpServer` (an SDK server over a runner, for any transport) and `createHttpHandler` (Streamable HTTP).
 */
export type { GeneratedTool, GeneratedTools, McpTool, ToolOperation } from "./derive-tools.js";
export type { Host } from "./host-subsets.js";
export { createHttpHandler, type HttpOptions, mcpPath } from "./http.js";
export { createMcpServer } from "./server.js";
export { createToolRunner, type ToolRunner, type ToolRunnerOptions } from "./tool-runner.js";
export { generatedTools } from "./tools.js";
