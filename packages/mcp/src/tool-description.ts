/**
 * A tool's description, for an agent choosing and calling it (hosts put every tool's description in the model's
 * context): the operation's `x-mcp.description`, else its summary and description. Used only by `derive-tools.ts`.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool
 */
import { isObject } from "./tool-schemas.js";
import type { JsonObject, ListAnswer } from "./tool-types.js";

/** The most characters a tool's description may have: agents' hosts put every tool's description in the context. */
export const maxDescriptionLength = 1500;

/**
 * The operation's `x-mcp.description` (written for an agent), else its summary and description with the lines of
 * each paragraph joined (the YAML's line breaks are not the text's). The statuses it may fail with are not repeated
 * here: the server's instructions list them once. A list answer's tool-only `limit` is said after it. Throws when
 * it is longer than {@link maxDescriptionLength}.
 */
export function toolDescription(
  where: string,
  operation: JsonObject,
  summary: string,
  list: ListAnswer | undefined,
): string {
  const mcp = isObject(operation["x-mcp"]) ? operation["x-mcp"] : {};
  const base =
    typeof mcp.description === "string"
      ? mcp.description.trim()
      : [summary, typeof operation.description === "string" ? operation.description : ""]
          .filter(Boolean)
          .join("\n\n")
          .replace(/([^\n])\n(?!\n)/g, "$1 ")
          .trim();
  const limit = list
    ? `\n\n\`limit\` (1 to ${list.maxItems}, default ${list.defaultLimit}) bounds the ${list.property} returned, best ` +
      `first; \`omitted\` counts those left out: give a larger limit or a narrower query to see them.`
    : "";
  const text = `${base}${limit}`;
  if (text.length > maxDescriptionLength) {
    throw new Error(
      `${where}: the tool's description has ${text.length} characters, more than ${maxDescriptionLength}; ` +
        "give the operation a shorter x-mcp.description (openapi/README.md)",
    );
  }
  return text;
}
