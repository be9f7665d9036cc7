/**
 * `npm run fuzz -- --runs N`: the property tests of test/adversarial with N cases per property instead of the
 * few `npm test` runs, seeded: `--seed S` replays a run, otherwise a seed is drawn and printed. Prints vitest's
 * report, then a summary — the seed, the outcome of the tests, and how the servers answered (status counts per
 * target, operation and case), so that one sees the 200 path was taken, not only refusals.
 *
 * Usage: tsx scripts/fuzz.ts [--runs 200] [--seed S] [vitest filters…]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { root } from "./tools.js";

const { values, positionals } = parseArgs({
  options: { runs: { type: "string", default: "200" }, seed: { type: "string" } },
  allowPositionals: true,
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error("usage: npm run fuzz -- [--runs N] [--seed S] [vitest filters…]");
  process.exit(2);
}

const dir = mkdtempSync(path.join(tmpdir(), "compute-fuzz-"));
const statsFile = path.join(dir, "stats.jsonl");
const resultsFile = path.join(dir, "results.json");
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const started = Date.now();
const run = spawnSync(
  process.execPath,
  [
    vitest,
    "run",
    ...(positionals.length > 0 ? positionals : ["test/adversarial"]),
    "--exclude",
    "test/adversarial/soak.test.ts",
    // Each case is a few requests; give a property time in proportion to its cases.
    `--testTimeout=${Math.max(30_000, runs * 200)}`,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${resultsFile}`,
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, FC_RUNS: String(runs), FC_SEED: String(seed), FC_STATS_FILE: statsFile },
  },
);

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};
const results = JSON.parse(read(resultsFile) || "{}") as {
  numTotalTests?: number;
  numPassedTests?: number;
  numFailedTests?: number;
};
const counts = new Map<string, number>();
for (const line of read(statsFile).split("\n").filter(Boolean)) {
  for (const [label, n] of Object.entries(JSON.parse(line) as Record<string, number>))
    counts.set(label, (counts.get(label) ?? 0) + n);
}
rmSync(dir, { recursive: true, force: true });

const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\nfuzz summary: seed ${seed}, ${runs} cases per property, ${seconds} s`);
console.log(
  `tests: ${results.numPassedTests ?? 0} passed, ${results.numFailedTests ?? 0} failed of ${results.numTotalTests ?? 0}`,
);
console.log(`replay: npm run fuzz -- --runs ${runs} --seed ${seed}`);
console.log(
  `answers counted: ${[...counts.values()].reduce((a, b) => a + b, 0)} (straight to the stub | through the gateway)`,
);
// Labels are `<target> <operation or suite> <case> <status>`: one line per case, a column per target.
const byCase = new Map<string, Record<string, number>>();
for (const [label, n] of counts) {
  const [target = "", ...rest] = label.split(" ");
  const row = byCase.get(rest.join(" ")) ?? {};
  row[target] = (row[target] ?? 0) + n;
  byCase.set(rest.join(" "), row);
}
const cases = [...byCase.keys()].sort();
const width = Math.max(...cases.map((c) => c.length), 10);
for (const c of cases)
  console.log(
    `  ${c.padEnd(width)}  ${String(byCase.get(c)?.stub ?? 0).padStart(6)} | ${String(byCase.get(c)?.gateway ?? 0).padStart(6)}`,
  );
process.exitCode = run.status ?? 1;
