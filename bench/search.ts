/**
 * Search latency with a large data set: starts the stub (`--generate`, 100,000 resources by default) in a child
 * process, so that the load generator does not share its event loop, and runs autocannon against a mix of
 * queries as the user who can access everything. Prints one row per query: req/s, p50 and p99 in ms.
 *
 *   npm run bench:search [-- --count 100000 --duration 5 --connections 1]
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generateFixtures } from "@compute-api/stub-server";
import autocannon from "autocannon";
import { searchMix } from "./search-mix.js";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "1" },
  },
});
const count = Number(values.count);
const key = "cak_bench-key";

// The same count and seed give the same data the stub generates, so the queries can name real resources.
const data = generateFixtures({ count });
const queries = searchMix(data);

const bin = fileURLToPath(new URL("../packages/stub-server/src/bin.ts", import.meta.url));
const child = spawn(
  process.execPath,
  [
    "--conditions=@compute-api/source",
    "--import",
    "tsx",
    bin,
    "--generate",
    String(count),
    "--port",
    "0",
    "--api-key",
    key,
    "--log-level",
    "silent",
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
let url = "";
let output = "";
child.stdout.setEncoding("utf8");
child.stdout.on("data", (chunk: string) => {
  output += chunk;
  url ||= /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? "";
});
const started = Date.now();
while (!url) {
  if (child.exitCode !== null) throw new Error(`the stub exited with ${child.exitCode}:\n${output}`);
  if (Date.now() - started > 300_000) throw new Error("the stub did not start within 300 s");
  await new Promise((r) => setTimeout(r, 100));
}
const startSeconds = (Date.now() - started) / 1000;
/** The stub's resident memory in MiB (Linux), or undefined. */
const rssMiB = (): number | undefined => {
  try {
    const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
    return kib === undefined ? undefined : Math.round(Number(kib) / 1024);
  } catch {
    return undefined;
  }
};
console.log(
  `stub with ${count} generated resources at ${url}, listening ${startSeconds.toFixed(1)} s after it was started, ` +
    `resident memory ${rssMiB() ?? "?"} MiB; ${values.connections} connection(s), ${values.duration} s per query\n`,
);

const rows: Record<string, string | number>[] = [];
try {
  for (const [name, query] of queries) {
    const target = `${url}/v1/resources/search?query=${encodeURIComponent(query)}`;
    const answer = (await (await fetch(target, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      results?: unknown[];
    };
    const result = await autocannon({
      url: target,
      connections: Number(values.connections),
      duration: Number(values.duration),
      headers: { authorization: `Bearer ${key}` },
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    rows.push({
      query: `${name}: ${query}`,
      results: answer.results?.length ?? 0,
      "req/s": Math.round(result.requests.average),
      "p50 ms": result.latency.p50,
      "p99 ms": result.latency.p99,
    });
  }
  console.log(`resident memory after the queries: ${rssMiB() ?? "?"} MiB`);
} finally {
  child.kill("SIGTERM");
  await once(child, "exit");
}
console.table(rows);
