/**
 * What an agent can do after a failed call: one step that works, per status, worded from the tool itself. Where an
 * identifier comes from is said once, in the spec's description of the argument (a cluster machine's id: from a
 * `type:cluster` search's `machines`), so an answer that blames identifiers quotes those descriptions; what calling
 * again would do follows the tool's annotations and the failures its operation documents.
 */
import { isObject } from "./tool-schemas.js";
import type { GeneratedTool, Json, JsonObject, McpTool } from "./tool-types.js";

/** What the failure named: the fields at fault (BadRequest) and the ErrorInfo metadata (`projectId`, `apikeyId`). */
export interface FailureFacts {
  fields: readonly string[];
  metadata: Readonly<Record<string, string>>;
}

/**
 * The schema of a field of the arguments, as the service names it (`volumeIds[2]`, `priceHr.value`): the deepest
 * one that has a description; undefined for a field the inputSchema does not have.
 */
function describedSchema(inputSchema: JsonObject, field: string): JsonObject | undefined {
  let node: Json | undefined = inputSchema;
  let described: JsonObject | undefined;
  for (const part of field.split(".")) {
    const [, name, indexed] = /^([^[]*)((?:\[\d*\])*)$/.exec(part) ?? [];
    if (name === undefined) return described;
    node = isObject(node) && isObject(node.properties) ? node.properties[name] : undefined;
    for (let i = 0; indexed && i < indexed.split("[").length - 1; i++) node = isObject(node) ? node.items : undefined;
    if (!isObject(node)) return described;
    if (typeof node.description === "string") described = node;
  }
  return described;
}

/** One line per named argument with its description (what it takes, where it comes from), each argument once. */
export function argumentRules(tool: McpTool, fields: readonly string[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const field of fields) {
    const schema = field === "" ? undefined : describedSchema(tool.inputSchema, field);
    const description = schema?.description;
    if (typeof description !== "string" || seen.has(description)) continue;
    seen.add(description);
    lines.push(`- ${field.replace(/\[\d+\]/g, "[]")}: ${description}`);
  }
  return lines;
}

/** A line of advice, then the arguments' descriptions when there are any. */
export const withRules = (advice: string, rules: string[]): string[] =>
  rules.length > 0 ? [`${advice} What they take:`, ...rules] : [advice];

/** The arguments a failure's metadata names (`projectId` of a 403, `apikeyId` of a 409). */
const namedArguments = (tool: McpTool, facts: FailureFacts): string[] =>
  Object.keys(facts.metadata).filter(
    (key) => isObject(tool.inputSchema.properties) && key in tool.inputSchema.properties,
  );

/**
 * What calling the tool again does after a failure that may have come after the service acted (a 5xx, no answer):
 * a read changed nothing; an idempotent change sets the same values again; a create whose operation answers 409
 * for an existing one tells by that 409 whether the first call was applied.
 */
export function repeatAdvice({ tool, operation }: GeneratedTool): string {
  if (tool.annotations.readOnlyHint) return "Nothing was changed (this tool only reads); call it again later.";
  if (tool.annotations.idempotentHint) {
    return "Calling it again with the same arguments is safe: it sets the same values whether or not this call was applied.";
  }
  if (operation.failures.includes(409)) {
    const lost =
      operation.shownOnce.length > 0
        ? ` and the ${operation.shownOnce.join(", ")} it showed only once is lost: call it with a new identifier instead`
        : "";
    return `It may or may not have been applied. Call it again later with the same arguments: an answer of 409 (already exists) means this call was applied${lost}.`;
  }
  return "It may or may not have been applied: check before calling it again.";
}

/** What each status a tool may get means, in a few words: the server's instructions list them once for every tool. */
export const statusMeanings: Readonly<Record<number, string>> = {
  400: "the service refused the arguments (each is named)",
  401: "the API key compute-mcp was started with was refused",
  403: "the key's user may not do this",
  404: "nothing has the identifiers given",
  409: "it exists already",
  413: "the request is too large",
  415: "the service refused the request's media type",
  429: "too many requests for this key (wait as Retry-After says)",
  500: "the service failed",
  502: "the gateway in front of the service got no valid answer from it",
  503: "the service is unavailable for now",
  504: "the service did not answer in time",
};

/** A meaning as a sentence. */
const sentence = (status: number): string => {
  const meaning = statusMeanings[status] ?? statusMeanings[500]!;
  return `${meaning[0]?.toUpperCase()}${meaning.slice(1)}.`;
};

/** The step to take after an answer of `status`, as lines (the last ones quote the arguments' descriptions). */
export function adviceFor(generated: GeneratedTool, status: number, facts: FailureFacts): string[] {
  const { tool, operation } = generated;
  const named = namedArguments(tool, facts);
  switch (status) {
    case 400:
      return withRules(
        "Fix the arguments named above and call again; the same arguments will be refused again.",
        argumentRules(tool, facts.fields),
      );
    case 401:
      return [
        "The API key compute-mcp was started with was refused; retrying will not help. Whoever runs compute-mcp must give it a valid COMPUTE_API_KEY.",
      ];
    case 403:
      return named.length > 0
        ? [
            `The key's user may not access the ${named.join(", ")} given, or nothing has it; retrying will not help. Choose one it can access, as its description says:`,
            ...argumentRules(tool, named),
          ]
        : [
            `The key's user may not call ${tool.name}; retrying will not help. Whoever runs compute-mcp must give it the key of a user who may.`,
          ];
    case 404:
      return [
        "Nothing has these identifiers; retrying will not help. Find them as their descriptions say, then call again:",
        ...argumentRules(tool, operation.pathParameters),
      ];
    case 409:
      return [
        `It exists already: call again with another ${named.length > 0 ? named.join(", ") : "identifier"}.`,
        ...argumentRules(tool, named),
      ];
    case 413:
      return ["The request is too large; send less."];
    case 415:
      return ["The service refused the request's media type; report this to the maintainers of compute-mcp."];
    case 429:
      return ["Too many requests for this key: wait, then call again."];
    default:
      return status >= 500 ? [sentence(status), repeatAdvice(generated)] : ["The service refused the request."];
  }
}
