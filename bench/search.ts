/**
 * Search latency with a large data set: starts the stub (`--generate`, 100,000 resources by default) in a child
 * process, so that the load generator does not share its event loop, and runs autocannon against a mix of
 * queries as the user who can access everything. Prints one row per query: req/s, p50 and p99 in ms, and the stub's
 * resident memory once listening, after the queries, and after a full garbage collection it is made to run.
 *
 * The stub runs with a heap limit of `--max-old-space` MiB (2048 by default; 0 for Node's own). Under load V8 lets
 * garbage grow until the heap is about halfway from what is live to its limit before it collects it all, and Node
 * sizes that limit from the machine's memory (4 GiB on one of 16 GiB or more): without a limit of its own, the
 * resident memory after the queries says how many queries ran and how much memory the machine has, not what the
 * stub keeps.
 *
 *   npm run bench:search [-- --count 100000 --duration 5 --connections 1 --max-old-space 2048]
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generateFixtures } from "@compute-api/fixtures";
import autocannon from "autocannon";
import { searchMix } from "./search-mix.js";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "1" },
    "max-old-space": { type: "string", default: "2048" },
  },
});
const count = Number(values.count);
const heapLimit = Number(values["max-old-space"]);
const key = "cak_bench-key";

// The same count and seed give the same data the stub generates, so the queries can name real resources.
const data = generateFixtures({ count });
const queries = searchMix(data);

/**
 * Loaded into the stub: on SIGUSR2 it runs a full garbage collection and prints its memory afterwards, so that what
 * the stub retains can be told from garbage not yet collected.
 */
const gcOnSignal = `process.on("SIGUSR2", () => {
  globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  process.stdout.write("forced gc " + JSON.stringify({ heapUsed, arrayBuffers }) + "\\n");
});`;

const bin = fileURLToPath(new URL("../packages/stub-server/src/bin.ts", import.meta.url));
const child = spawn(
  process.execPath,
  [
    "--conditions=@compute-api/source",
    ...(heapLimit > 0 ? [`--max-old-space-size=${heapLimit}`] : []),
    "--expose-gc",
    "--import",
    `data:text/javascript,${encodeURIComponent(gcOnSignal)}`,
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
/** The stub's resident memory in MiB (Linux), or undefined; `VmHWM` for its peak so far. */
const rssMiB = (field: "VmRSS" | "VmHWM" = "VmRSS"): number | undefined => {
  try {
    const kib = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
    return kib === undefined ? undefined : Math.round(Number(kib) / 1024);
  } catch {
    return undefined;
  }
};
console.log(
  `stub with ${count} generated resources at ${url}, listening ${startSeconds.toFixed(1)} s after it was started, ` +
    `resident memory ${rssMiB() ?? "?"} MiB (heap limit ${heapLimit > 0 ? `${heapLimit} MiB` : "Node's"}); ` +
    `${values.connections} connection(s), ${values.duration} s per query\n`,
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
  console.log(`resident memory after the queries: ${rssMiB() ?? "?"} MiB (peak ${rssMiB("VmHWM") ?? "?"} MiB)`);
  child.kill("SIGUSR2");
  const gcStarted = Date.now();
  let collected = /forced gc (\{.*\})/.exec(output);
  while (!collected) {
    if (Date.now() - gcStarted > 60_000) throw new Error("the stub did not report a forced garbage collection in 60 s");
    await new Promise((r) => setTimeout(r, 100));
    collected = /forced gc (\{.*\})/.exec(output);
  }
  const after = JSON.parse(collected[1] as string) as Record<"heapUsed" | "arrayBuffers", number>;
  // V8 gives the pages it freed back to the system from a background thread, soon after the collection.
  await new Promise((r) => setTimeout(r, 3000));
  const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
  console.log(
    `after a forced full garbage collection: resident memory ${rssMiB() ?? "?"} MiB (JavaScript heap ` +
      `${mib(after.heapUsed)} MiB, array buffers ${mib(after.arrayBuffers)} MiB)`,
  );
} finally {
  child.kill("SIGTERM");
  await once(child, "exit");
}
console.table(rows);
