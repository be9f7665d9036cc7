/**
 * What a tool call answers: the API's 200 body as `structuredContent` with a short text form, or an error result
 * (`isError: true`) whose text says what went wrong and what an agent can do about it. Never a protocol error,
 * never a stack trace.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import type { FieldViolation } from "@compute-api/contract";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GeneratedTool, McpTool } from "./derive-tools.js";

/** A result whose text is that of an error. */
function errorResult(lines: string[]): CallToolResult {
  return { isError: true, content: [{ type: "text", text: lines.filter(Boolean).join("\n") }] };
}

const fieldName = (field: string) => (field === "" ? "(the arguments as a whole)" : field);

/** The lines of field violations, one each. */
function violationLines(violations: readonly FieldViolation[]): string[] {
  return violations.map(
    (v) => `- ${fieldName(v.field)}: ${v.description}${v.reason && v.reason !== v.description ? ` (${v.reason})` : ""}`,
  );
}

/** Arguments refused before any request was sent. */
export function refusedArguments(
  { tool, operation }: GeneratedTool,
  violations: readonly FieldViolation[],
): CallToolResult {
  // The body's `minProperties` reads "must NOT have fewer than 1 properties"; in the flat arguments it means this.
  const named = violations.map((v) =>
    v.field === "" && v.reason === "minProperties" && operation.bodyProperties
      ? { ...v, description: `give at least one of ${operation.bodyProperties.join(", ")}` }
      : v,
  );
  return errorResult([
    `${tool.name}: the arguments do not match the tool's inputSchema; nothing was sent.`,
    ...violationLines(named),
    "Fix the arguments named above and call again.",
  ]);
}

/** What an agent can do after each status. */
const advice: Record<number, string> = {
  400: "Fix the arguments named above and call again; the same arguments will be refused again.",
  401: "The API key compute-mcp was started with was refused; retrying will not help. Whoever runs compute-mcp must give it a valid COMPUTE_API_KEY.",
  403: "The key's user may not do this to this resource; retrying will not help. Choose a resource the user can access (searchResources lists them).",
  404: "Nothing has that identifier; check it, for example with searchResources.",
  409: "It exists already; choose another identifier.",
  413: "The request is too large; send less.",
  415: "The service refused the request's media type; report this to the maintainers of compute-mcp.",
  429: "Too many requests for this key.",
  500: "The service failed.",
  502: "The gateway in front of the service got no valid answer from it.",
  503: "The service is unavailable for now.",
  504: "The service did not answer in time.",
};

/**
 * What calling the tool again would do, after a failure that may have happened after the service acted (a 5xx, or
 * no answer): by its annotations. Only a tool that is neither read-only nor idempotent may have made a change that
 * a repeat would make twice.
 */
function repeatAdvice({ annotations }: McpTool): string {
  if (annotations.readOnlyHint) return "Nothing was changed (this tool only reads); call it again later.";
  if (annotations.idempotentHint) {
    return "Calling it again with the same arguments is safe: it sets the same values whether or not this call was applied.";
  }
  return "A change may or may not have been applied, so search before repeating it.";
}

/**
 * An error body of the API (ErrorBody) and the response it came with, as an error result; `attempts` says how many
 * calls compute-mcp made (retries of a 429 or 503, tool-retry.ts).
 */
export function apiErrorResult(
  tool: McpTool,
  status: number,
  body: unknown,
  headers: Headers,
  attempts = 1,
): CallToolResult {
  const error = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const message = typeof error.message === "string" ? error.message : `HTTP ${status} without an error body`;
  const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : [];
  const lines = [`${tool.name} failed: ${status} ${message}${attempts > 1 ? ` (after ${attempts} attempts)` : ""}`];
  for (const detail of details) {
    const type = String(detail["@type"] ?? "");
    if (type.endsWith("google.rpc.ErrorInfo") && typeof detail.reason === "string") {
      const metadata = typeof detail.metadata === "object" && detail.metadata !== null ? detail.metadata : {};
      const facts = Object.entries(metadata).map(([k, v]) => `${k}=${String(v)}`);
      lines.push(`Reason: ${detail.reason}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}`);
    }
    if (type.endsWith("google.rpc.BadRequest") && Array.isArray(detail.fieldViolations)) {
      lines.push("Arguments at fault:", ...violationLines(detail.fieldViolations as FieldViolation[]));
    }
  }
  lines.push(advice[status] ?? (status >= 500 ? advice[500]! : "The service refused the request."));
  if (status >= 500) lines.push(repeatAdvice(tool));
  const retry = retryAfterSeconds(headers, details);
  if (retry !== undefined) lines.push(`Retry after ${retry} s (the service's Retry-After), not sooner.`);
  return errorResult(lines);
}

/** The wait the service asks for: the Retry-After header (seconds), else a RetryInfo detail's `retryDelay`. */
export function retryAfterSeconds(headers: Headers, details: Record<string, unknown>[]): number | undefined {
  const header = headers.get("retry-after");
  if (header && /^\d+$/.test(header.trim())) return Number(header);
  for (const detail of details) {
    const delay = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay ?? ""));
    if (delay?.[1]) return Math.ceil(Number(delay[1]));
  }
  return undefined;
}

/** No answer from the service at all (refused connection, timeout, cancellation). */
export function unreachableResult(tool: McpTool, what: string): CallToolResult {
  return errorResult([`${tool.name} failed: ${what}`, "Nothing was answered.", repeatAdvice(tool)]);
}

/** A success: the body as structured content, with a short text form and the JSON; a bodiless one (204) in words. */
export function successResult({ tool, operation }: GeneratedTool, data: unknown): CallToolResult {
  if (tool.outputSchema === undefined) return { content: [{ type: "text", text: `${tool.name}: done.` }] };
  const body = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  const lines = [summaryOf(tool.name, body)];
  const once = operation.shownOnce.filter((field) => body[field] !== undefined);
  if (once.length > 0) {
    lines.push(
      `${once.join(", ")}: shown only this once. Store it now (the service keeps only a hash); it cannot be retrieved again.`,
    );
  }
  lines.push(JSON.stringify(body));
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: body };
}

/** One line that says what came back; the JSON follows it. */
function summaryOf(toolName: string, body: Record<string, unknown>): string {
  if (Array.isArray(body.results)) {
    const results = body.results as { resourceName?: string; resourceType?: string; score?: number }[];
    const names = results.slice(0, 5).map((r) => `${r.resourceName} (${r.resourceType}, score ${r.score})`);
    const more = results.length > 5 ? `, and ${results.length - 5} more` : "";
    return results.length === 0
      ? `${toolName}: no results.`
      : `${toolName}: ${results.length} result${results.length === 1 ? "" : "s"}, best first: ${names.join(", ")}${more}.`;
  }
  const id = typeof body.id === "string" ? ` ${body.id}` : "";
  return `${toolName}: done${id}.`;
}
