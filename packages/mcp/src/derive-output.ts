/**
 * A tool's output from its operation's success response, for `derive-tools.ts` at build time: the outputSchema
 * (the response's schema, its components once each under `$defs`), the fields shown only once, and for a read
 * whose answer is a list the tool-only `limit` that bounds it, with the `omitted` count the result then carries.
 * Hosts pass a result to the model as text, as `structuredContent`, or both (Claude Code the structured JSON alone,
 * most others the text, Gemini's SDK both), so the bound applies to both.
 */
import { isObject, resolveRef, withDefs } from "./tool-schemas.js";
import type { JsonObject, ListAnswer, McpTool } from "./tool-types.js";

/** The items a list answer keeps when a call gives no `limit`: enough to choose from, few enough to read. */
export const defaultLimit = 10;

/** The tool-only argument that bounds a list answer. */
export function limitSchema({ maxItems, defaultLimit: fallback }: ListAnswer): JsonObject {
  return {
    type: "integer",
    minimum: 1,
    maximum: maxItems,
    default: fallback,
    description:
      `The most results to return, best first: 1 to ${maxItems}, default ${fallback}. compute-mcp keeps that ` +
      "many of the service's answer and counts the others in `omitted`; it is not sent to the service.",
  };
}

/** The one array of an object schema that has a `maxItems`, as a list answer; undefined for any other body. */
function listOf(schema: JsonObject): ListAnswer | undefined {
  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
  const lists = properties.filter(([, p]) => isObject(p) && p.type === "array" && typeof p.maxItems === "number");
  if (lists.length !== 1) return undefined;
  const [property, list] = lists[0]!;
  return { property, maxItems: (list as JsonObject).maxItems as number, defaultLimit };
}

/**
 * The success response's schema (the operation's first 2xx) as the tool's outputSchema, the result fields it shows
 * only once (a new key), and its list when `limitable` (a read without its own `limit`); no outputSchema for a
 * success without a JSON body (a 204).
 */
export function toolOutput(
  spec: JsonObject,
  where: string,
  operation: JsonObject,
  limitable: boolean,
): { outputSchema?: McpTool["outputSchema"]; shownOnce: string[]; list?: ListAnswer } {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const success = Object.keys(responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0];
  if (success === undefined) throw new Error(`${where}: no 2xx response`);
  const raw = responses[success];
  const response = isObject(raw) ? resolveRef(spec, raw) : {};
  const content = isObject(response.content) ? response.content : undefined;
  if (content === undefined) return { shownOnce: [] };
  const media = content["application/json"];
  if (!isObject(media)) throw new Error(`${where}: the ${success} response has no application/json body`);
  const outputSchema = withDefs(spec, media.schema ?? {}) as NonNullable<McpTool["outputSchema"]>;
  const resultProperties = isObject(outputSchema.properties) ? outputSchema.properties : {};
  // A secret the service shows once is marked `x-secret: true` in the spec (the facts module lists the same).
  const shownOnce = Object.entries(resultProperties)
    .filter(([, schema]) => isObject(schema) && schema["x-secret"] === true)
    .map(([field]) => field);
  const list = limitable ? listOf(outputSchema) : undefined;
  if (!list) return { outputSchema, shownOnce };
  if ("omitted" in resultProperties) throw new Error(`${where}: the answer has its own omitted; limit cannot say it`);
  outputSchema.properties = {
    ...resultProperties,
    omitted: {
      type: "integer",
      minimum: 1,
      description: `How many of the service's ${list.property} \`limit\` left out (compute-mcp's own; absent when none were).`,
    },
  };
  return { outputSchema, shownOnce, list };
}
