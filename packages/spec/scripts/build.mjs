// Builds dist/ (or the folder given as the first argument): the files of the repository's generated/ folder that
// this package publishes, copied as they are. generated/ is built from openapi/ by `npm run build` at the root.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The files this package publishes, relative to generated/ and to dist/. */
export const published = ["openapi.json", "openapi.yaml", "schema.d.ts", "docs/index.html"];

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const generatedDir = join(packageDir, "../../generated");

/** Copies the published files of generated/ into outDir, from scratch. */
export function build(outDir = join(packageDir, "dist")) {
  rmSync(outDir, { recursive: true, force: true });
  for (const file of published) {
    mkdirSync(dirname(join(outDir, file)), { recursive: true });
    cpSync(join(generatedDir, file), join(outDir, file));
  }
}

if (resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) build(process.argv[2] ? resolve(process.argv[2]) : undefined);
