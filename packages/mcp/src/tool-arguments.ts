/**
 * A tool's flat arguments as the HTTP request they stand for, checked by the compiled contract of
 * @compute-api/contract (the gateway's validator) before anything is sent: the same rules, the same field names
 * (`volumeIds[2]`, `priceHr.value`, `query`) as the service's own 400 answer.
 */
import type { Contract, FieldViolation } from "@compute-api/contract";
import type { GeneratedTool } from "./derive-tools.js";

/** The parts of the request a tool call makes. */
export interface ToolRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  /** The request body; undefined for an operation that takes none. */
  body: Record<string, unknown> | undefined;
}

/** The request, or the violations that refuse the arguments. */
export type CheckedArguments = { request: ToolRequest } | { violations: FieldViolation[] };

// The contract checks the API key's presence too; the real key is the client's to send, never the checker's.
const checkHeaders = { authorization: "Bearer argument-check" };

/** Splits and checks the arguments of a call to `tool`. */
export function checkArguments(
  contract: Contract,
  { tool, operation }: GeneratedTool,
  args: Record<string, unknown>,
): CheckedArguments {
  const known = Object.keys(tool.inputSchema.properties as Record<string, unknown>);
  const violations: FieldViolation[] = [];
  for (const name of Object.keys(args)) {
    if (!known.includes(name)) {
      violations.push({
        field: name,
        description: `unknown argument; ${tool.name} takes ${known.join(", ")}`,
        reason: "additionalProperties",
      });
    }
  }
  const path: Record<string, string> = {};
  for (const name of operation.pathParameters) {
    const value = args[name];
    if (value === undefined) violations.push({ field: name, description: "is required", reason: "required" });
    else if (typeof value !== "string") violations.push({ field: name, description: "must be string", reason: "type" });
    else path[name] = value;
  }
  if (violations.length > 0) return { violations };

  const query: Record<string, string> = {};
  for (const name of operation.queryParameters) {
    if (args[name] !== undefined) query[name] = String(args[name]);
  }
  const body =
    operation.bodyProperties &&
    Object.fromEntries(operation.bodyProperties.filter((name) => args[name] !== undefined).map((n) => [n, args[n]]));
  const search = new URLSearchParams(query).toString();
  const url =
    operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? "")) +
    (search ? `?${search}` : "");
  const match = contract.route(operation.method, url);
  if (!("operation" in match)) {
    return { violations: operation.pathParameters.map((field) => ({ field, description: match.message })) };
  }
  const text = body === null ? undefined : JSON.stringify(body);
  const headers = text
    ? { ...checkHeaders, "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) }
    : checkHeaders;
  const refused = contract.checkRequest(match, { url, headers, body: body ?? undefined });
  if (refused) {
    const found = refused.details.flatMap((detail) =>
      "fieldViolations" in detail && Array.isArray(detail.fieldViolations) ? detail.fieldViolations : [],
    );
    return { violations: found.length > 0 ? found : [{ field: "", description: refused.message }] };
  }
  return { request: { path, query, body: body ?? undefined } };
}
