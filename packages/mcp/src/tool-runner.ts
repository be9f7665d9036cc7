/**
 * Runs the generated tools: arguments checked against each tool's inputSchema and by the compiled contract, the call made with @compute-api/client
 * (so it works against the service, the stub, the Postgres example or anything behind the gateway), and every
 * outcome a tool result. Built once per process; the MCP servers of every session share it.
 */
import { ComputeNetworkError, createComputeClient } from "@compute-api/client";
import { type Contract, compileContract } from "@compute-api/contract";
import type { Logger } from "@compute-api/runtime";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { GeneratedTool } from "./derive-tools.js";
import { toolForHost } from "./host-schemas.js";
import type { Host } from "./host-subsets.js";
import { compileInputSchemas, withoutNullOptionals } from "./input-schemas.js";
import { anySignal } from "./signals.js";
import { checkArguments } from "./tool-arguments.js";
import { apiErrorResult, refusedArguments, successResult, unreachableResult } from "./tool-results.js";
import { sendWithRetries } from "./tool-retry.js";
import { generatedTools } from "./tools.js";

/** Options of {@link createToolRunner}. */
export interface ToolRunnerOptions {
  /** The service's origin, without `/v1`, such as `http://127.0.0.1:4010`. */
  baseUrl: string;
  /** The API key every call is made with; never shown in a result, an error or a log line. */
  apiKey: string | undefined;
  /** Where a line per call goes (tool, outcome, status, duration; never arguments, results or the key). */
  logger?: Logger;
  /** The fetch the client uses (default the global one). */
  fetch?: (input: Request) => Promise<Response>;
  /** Time one call may take, its retries and their waits included (default 30 000 ms). */
  timeoutMs?: number;
  /** The compiled contract; default the spec of @compute-api/spec's. */
  contract?: Contract;
  /** The names of the tools to serve (default every tool); an unknown one is refused here. */
  tools?: readonly string[] | undefined;
  /** Serve only the tools annotated read-only (`readOnlyHint`). */
  readOnly?: boolean | undefined;
  /**
   * List the schemas within this host's subset of JSON Schema (`host-subsets.ts`); default the full schemas. Calls
   * are held to the full schemas either way, optional arguments given as null taken as not given.
   */
  client?: Host | undefined;
}

/** The tools and how to call them. */
export interface ToolRunner {
  /** What tools/list answers. */
  tools: Tool[];
  /** The generated tools served, with their operations. */
  generated: readonly GeneratedTool[];
  /** Whether a tool of that name exists. */
  has(name: string): boolean;
  /** Calls a tool; every outcome but an unknown tool is a result. */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
}

type LooseRequest = (
  method: string,
  path: string,
  init: {
    params: { path: Record<string, string>; query: Record<string, string> };
    body?: unknown;
    signal?: AbortSignal;
  },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The generated tools that `tools` and `readOnly` choose, in their order; an unknown name is a TypeError. */
function selectedTools({ tools, readOnly }: Pick<ToolRunnerOptions, "tools" | "readOnly">): GeneratedTool[] {
  const all = generatedTools().tools;
  const unknown = (tools ?? []).filter((name) => !all.some((t) => t.tool.name === name));
  if (unknown.length > 0) throw new TypeError(`compute-mcp: unknown tool ${unknown.join(", ")}`);
  return all.filter(
    ({ tool }) => (tools === undefined || tools.includes(tool.name)) && (!readOnly || tool.annotations.readOnlyHint),
  );
}

/** Builds the runner; a bad base URL or a missing key is refused here (a TypeError that says which). */
export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  const { apiKey, logger, client: host } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const client = createComputeClient({
    baseUrl: options.baseUrl,
    apiKey,
    ...(options.fetch && { fetch: options.fetch }),
    timeoutMs,
    // The tools' retries follow their annotations (tool-retry.ts), the client's would retry only a GET.
    retry: false,
  });
  // The operations are the spec's, so the generic form of openapi-fetch's request() is enough here.
  const request = client.request.bind(client) as unknown as LooseRequest;
  const contract = options.contract ?? compileContract();
  const byName = new Map<string, GeneratedTool>(selectedTools(options).map((t) => [t.tool.name, t]));
  const inputChecks = compileInputSchemas(contract.spec, [...byName.values()]);
  // Defence in depth: no text leaves with the configured key in it, whatever a dependency put in a message.
  const redact = (result: CallToolResult): CallToolResult =>
    apiKey && result.isError
      ? {
          ...result,
          content: result.content.map((c) =>
            c.type === "text" ? { ...c, text: c.text.replaceAll(apiKey, "[redacted]") } : c,
          ),
        }
      : result;

  async function run(generated: GeneratedTool, args: Record<string, unknown>, cancel?: AbortSignal) {
    const { tool, operation } = generated;
    // An adapted schema sends an optional argument it has no value for as null: not given, before the full check.
    const given = host ? withoutNullOptionals(args, tool.inputSchema) : args;
    const checked = checkArguments(contract, generated, inputChecks.get(tool.name)!, given);
    if ("violations" in checked) return { result: refusedArguments(generated, checked.violations) };
    const { path, query, body } = checked.request;
    // One deadline for the call, its retries and their waits included.
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = anySignal(cancel, deadline);
    const send = () =>
      request(operation.method.toLowerCase(), operation.path, {
        params: { path, query },
        ...(body !== undefined && { body }),
        signal,
      });
    try {
      const { answer, attempts } = await sendWithRetries(tool, send, signal);
      const { data, error, response } = answer;
      const result = response.ok
        ? successResult(generated, data, given.limit)
        : apiErrorResult(generated, response.status, error, response.headers, attempts);
      return { result, status: response.status, attempts };
    } catch (error) {
      if (error instanceof ComputeNetworkError) {
        return { result: unreachableResult(generated, `no answer from ${error.baseUrl} (${error.code})`) };
      }
      if (cancel?.aborted) return { result: unreachableResult(generated, "the call was cancelled") };
      if (deadline.aborted || (error instanceof DOMException && error.name === "TimeoutError")) {
        return { result: unreachableResult(generated, "the service did not answer in time") };
      }
      logger?.error({ tool: tool.name, err: error }, "tool call failed unexpectedly");
      return { result: unreachableResult(generated, "compute-mcp failed unexpectedly (its log says why)") };
    }
  }

  return {
    tools: [...byName.values()].map((t) => (host ? toolForHost(t, host) : t.tool) as unknown as Tool),
    generated: [...byName.values()],
    has: (name) => byName.has(name),
    async call(name, args, signal) {
      const generated = byName.get(name);
      if (!generated) throw new Error(`unknown tool ${name}`);
      const started = performance.now();
      const { result, status, attempts } = await run(generated, args, signal);
      logger?.info(
        {
          tool: name,
          status,
          attempts,
          isError: result.isError === true,
          durationMs: Math.round(performance.now() - started),
        },
        "tool call",
      );
      return redact(result);
    },
  };
}
