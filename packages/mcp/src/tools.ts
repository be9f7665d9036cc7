/** The tools generated from the spec (`src/generated/tools.json`, written by `npm run build`), read once. */
import { readFileSync } from "node:fs";
import type { GeneratedTools } from "./derive-tools.js";

let cached: GeneratedTools | undefined;

/**
 * The generated tools. The file stays in `src/generated/` (the package publishes `src/`); this module runs from
 * `src/` in the repository and from `dist/` when installed, and `../src/generated/` is that folder from both.
 */
export function generatedTools(): GeneratedTools {
  cached ??= JSON.parse(
    readFileSync(new URL("../src/generated/tools.json", import.meta.url), "utf8"),
  ) as GeneratedTools;
  return cached;
}
