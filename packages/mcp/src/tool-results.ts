/**
 * What a tool call answers: the API's 200 body as `structuredContent` with a short text form, or an error result
 * (`isError: true`) whose text says what went wrong and what an agent can do about it. Never a protocol error,
 * never a stack trace.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import type { FieldViolation } from "@compute-api/contract";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GeneratedTool, ToolOperation } from "./derive-tools.js";
import { limitedBody } from "./result-limit.js";
import { adviceFor, argumentRules, type FailureFacts, repeatAdvice, withRules } from "./tool-advice.js";

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
    ...withRules(
      "Fix the arguments named above and call again.",
      argumentRules(
        tool,
        named.map((v) => v.field),
      ),
    ),
  ]);
}

/**
 * An error body of the API (ErrorBody) and the response it came with, as an error result; `attempts` says how many
 * calls compute-mcp made (retries of a 429 or 503, tool-retry.ts).
 */
export function apiErrorResult(
  generated: GeneratedTool,
  status: number,
  body: unknown,
  headers: Headers,
  attempts = 1,
): CallToolResult {
  const error = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const message = typeof error.message === "string" ? error.message : `HTTP ${status} without an error body`;
  const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : [];
  const lines = [
    `${generated.tool.name} failed: ${status} ${message}${attempts > 1 ? ` (after ${attempts} attempts)` : ""}`,
  ];
  const facts: FailureFacts = { fields: [], metadata: {} };
  for (const detail of details) {
    const type = String(detail["@type"] ?? "");
    if (type.endsWith("google.rpc.ErrorInfo") && typeof detail.reason === "string") {
      const metadata = typeof detail.metadata === "object" && detail.metadata !== null ? detail.metadata : {};
      const pairs = Object.entries(metadata).map(([k, v]) => `${k}=${String(v)}`);
      lines.push(`Reason: ${detail.reason}${pairs.length > 0 ? ` (${pairs.join(", ")})` : ""}`);
      facts.metadata = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)]));
    }
    if (type.endsWith("google.rpc.BadRequest") && Array.isArray(detail.fieldViolations)) {
      const violations = detail.fieldViolations as FieldViolation[];
      lines.push("Arguments at fault:", ...violationLines(violations));
      facts.fields = violations.map((v) => v.field);
    }
  }
  lines.push(...adviceFor(generated, status, facts));
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
export function unreachableResult(generated: GeneratedTool, what: string): CallToolResult {
  return errorResult([`${generated.tool.name} failed: ${what}`, "Nothing was answered.", repeatAdvice(generated)]);
}

/**
 * A success: the body as structured content (a list cut to the call's `limit`), with a short text form and the same
 * JSON (hosts that give the model only text see it all); a bodiless one (204) in words.
 */
export function successResult({ tool, operation }: GeneratedTool, data: unknown, limit?: unknown): CallToolResult {
  if (tool.outputSchema === undefined) return { content: [{ type: "text", text: `${tool.name}: done.` }] };
  const body = limitedBody(
    operation,
    (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>,
    limit,
  );
  const lines = [summaryOf(tool.name, body, operation.list)];
  const once = operation.shownOnce.filter((field) => body[field] !== undefined);
  if (once.length > 0) {
    lines.push(
      `${once.join(", ")}: shown only this once. Store it now (the service keeps only a hash); it cannot be retrieved again.`,
    );
  }
  lines.push(JSON.stringify(body));
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: body };
}

/** One line that says what came back (and what `limit` left out); the JSON follows it. */
function summaryOf(toolName: string, body: Record<string, unknown>, list: ToolOperation["list"]): string {
  if (Array.isArray(body.results)) {
    const results = body.results as { resourceName?: string; resourceType?: string; score?: number }[];
    const omitted = typeof body.omitted === "number" ? body.omitted : 0;
    const total = results.length + omitted;
    const names = results.slice(0, 5).map((r) => `${r.resourceName} (${r.resourceType}, score ${r.score})`);
    const more = results.length > 5 ? `, and ${results.length - 5} more` : "";
    const shown =
      omitted > 0
        ? `; the ${results.length} best are below (\`limit\` left out ${omitted}: give a larger one, up to ${list?.maxItems}, or a narrower query)`
        : "";
    return total === 0
      ? `${toolName}: no results.`
      : `${toolName}: ${total} result${total === 1 ? "" : "s"}, best first${shown}: ${names.join(", ")}${more}.`;
  }
  const id = typeof body.id === "string" ? ` ${body.id}` : "";
  return `${toolName}: done${id}.`;
}
