/**
 * A list answer bounded by the tool's own `limit` (derive-output.ts): the first `limit` items, best first as the
 * service ordered them, and `omitted` counting the others, so that one search does not fill an agent's context.
 */
import type { ToolOperation } from "./tool-types.js";

/** The body with its list cut to `limit` (default the list's own); unchanged when it is no longer. */
export function limitedBody(
  { list }: ToolOperation,
  body: Record<string, unknown>,
  limit: unknown,
): Record<string, unknown> {
  const items = list ? body[list.property] : undefined;
  if (!list || !Array.isArray(items)) return body;
  const keep = typeof limit === "number" ? limit : list.defaultLimit;
  if (items.length <= keep) return body;
  return { ...body, [list.property]: items.slice(0, keep), omitted: items.length - keep };
}
