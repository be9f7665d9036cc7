// Builds dist/ (or the folder given as the first argument) from scratch: compiles src/ with tsc, then ships the
// generated OpenAPI types as schema.d.ts beside the output, where the compiled `./schema.js` imports point. In the
// repository, src/schema.d.ts re-exports that same generated file, so the import is valid before and after.
import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const outDir = resolve(packageDir, process.argv[2] ?? "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", "tsconfig.json", "--outDir", outDir], { cwd: packageDir, stdio: "inherit" });
// The types come from the spec package (a dev dependency), so the client ships them and needs nothing at run time.
const specDir = dirname(createRequire(import.meta.url).resolve("@compute-api/spec/package.json"));
copyFileSync(join(specDir, "dist/generated/schema.d.ts"), join(outDir, "schema.d.ts"));
