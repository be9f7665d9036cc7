/**
 * The tool table of this package's README, written by `npm run build` from the generated tools (and checked by
 * `npm run check:generated`) between two markers, so that the README lists every tool the spec makes. Used only at
 * build time.
 */
import type { GeneratedTools } from "./tool-types.js";

const begin = "<!-- tools: written by `npm run build` from openapi/; do not edit -->";
const end = "<!-- /tools -->";

/** The annotations of a tool in words: read-only tools are never destructive, so that is not said of them. */
function hintWords({ readOnlyHint, idempotentHint, destructiveHint }: Record<string, boolean>): string {
  if (readOnlyHint) return idempotentHint ? "read-only, idempotent" : "read-only";
  return [
    "not read-only",
    idempotentHint ? "idempotent" : "not idempotent",
    destructiveHint ? "destructive" : "not destructive",
  ].join(", ");
}

/** The table of the tools: name, operation, annotations. */
export function toolTable({ tools }: GeneratedTools): string {
  const rows = tools.map(
    ({ tool, operation }) =>
      `| \`${tool.name}\` | \`${operation.method} ${operation.path}\` | ${hintWords(tool.annotations as unknown as Record<string, boolean>)} |`,
  );
  return ["| Tool | Operation | Annotations |", "|---|---|---|", ...rows].join("\n");
}

/** The README with the table between its markers replaced; throws when the markers are missing. */
export function withToolTable(readme: string, tools: GeneratedTools): string {
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`packages/mcp/README.md: the markers ${begin} … ${end} are missing`);
  return `${readme.slice(0, from + begin.length)}\n${toolTable(tools)}\n${readme.slice(to)}`;
}
