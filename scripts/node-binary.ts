/**
 * `tsx scripts/node-binary.ts <line>… [--cache-dir <dir>]`: the executable of each Node.js line given (20, 22, 24 or
 * 26, at the version package.json's config pins), one a line, fetched from the npm registry the first time, as the
 * tests fetch it (@compute-api/test-support/node). .ci/run takes its Node lines from here.
 */
import { parseArgs } from "node:util";
import { type NodeLine, nodeBinary, nodeLines } from "@compute-api/test-support/node";

const { positionals, values } = parseArgs({ allowPositionals: true, options: { "cache-dir": { type: "string" } } });
const unknown = positionals.filter((line) => !nodeLines.some((known) => String(known) === line));
if (positionals.length === 0 || unknown.length > 0) {
  process.stderr.write(
    `usage: tsx scripts/node-binary.ts <line>… [--cache-dir <dir>], each line one of ${nodeLines.join(", ")}\n`,
  );
  process.exit(2);
}
try {
  const cacheDir = values["cache-dir"];
  for (const line of positionals) {
    const path = await nodeBinary(Number(line) as NodeLine, cacheDir === undefined ? {} : { cacheDir });
    process.stdout.write(`${path}\n`);
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
