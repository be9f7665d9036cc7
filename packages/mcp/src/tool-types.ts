/**
 * The shapes of the generated MCP tools: the JSON values the derivation walks, what MCP's tools/list answers for one
 * tool, where each argument goes in the HTTP request, and the content of `src/generated/tools.json`. Types only;
 * `derive-tools.ts` re-exports them, so importers keep importing from there.
 */
/** A JSON value of the document, walked without knowing its shape. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** What MCP's tools/list answers for one tool. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject & { type: "object" };
  /** The success body's schema; absent when the operation answers without a body (204). */
  outputSchema?: JsonObject & { type: "object" };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

/** Where each argument of a tool goes in the HTTP request. */
export interface ToolOperation {
  method: string;
  /** The path template, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  path: string;
  pathParameters: string[];
  queryParameters: string[];
  /** The request body's properties, taken from the flat arguments; null when the operation takes no body. */
  bodyProperties: string[] | null;
  /** Result fields that the service returns only in this answer (a new secret): the text says so. */
  shownOnce: string[];
  /** The failure statuses the operation documents (every response but its success), in ascending order. */
  failures: number[];
  /**
   * A read whose answer is a list (the one array of its body that has a `maxItems`): the tool's own `limit` argument
   * keeps the first `limit` items (default `defaultLimit`), and the result's `omitted` counts the others.
   */
  list?: ListAnswer;
}

/** The list of a list answer, which a tool-only `limit` bounds. */
export interface ListAnswer {
  /** The body's property that holds the list, such as `results`. */
  property: string;
  /** Its `maxItems`: the most the service answers, and the largest `limit`. */
  maxItems: number;
  /** The items kept when a call gives no `limit`. */
  defaultLimit: number;
}

/** One generated tool: what the protocol lists, and how a call becomes a request. */
export interface GeneratedTool {
  tool: McpTool;
  operation: ToolOperation;
}

/** The generated file's content. */
export interface GeneratedTools {
  /** The spec's `info.version` the tools were derived from. */
  specVersion: string;
  tools: GeneratedTool[];
}
