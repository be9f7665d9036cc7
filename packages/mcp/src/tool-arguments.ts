/**
 * A tool's flat arguments as the HTTP request they stand for, checked before anything is sent: first against the
 * tool's own inputSchema as listed (their JSON types included), then as the request they make by the compiled
 * contract of @compute-api/contract (the gateway's validator): the same rules, the same field names
 * (`volumeIds[2]`, `priceHr.value`, `query`) as the service's own 400 answer.
 */
import type { Contract, FieldViolation } from "@compute-api/contract";
import type { GeneratedTool } from "./derive-tools.js";
import type { InputCheck } from "./input-schemas.js";

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

/**
 * Checks the arguments of a call to `tool` against its listed inputSchema (`inputCheck`), then splits them into the
 * request they stand for and checks that with the contract.
 */
export function checkArguments(
  contract: Contract,
  { operation }: GeneratedTool,
  inputCheck: InputCheck,
  args: Record<string, unknown>,
): CheckedArguments {
  const violations = inputCheck(args);
  if (violations.length > 0) return { violations };
  // The inputSchema holds every path parameter as a required string.
  const path = Object.fromEntries(operation.pathParameters.map((name) => [name, String(args[name])]));
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
