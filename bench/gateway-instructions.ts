/**
 * Instructions per request of the gateway's hot path, counted by valgrind's callgrind: a figure that the other load
 * of a shared machine does not move, unlike req/s or CPU time. Search with 10 results (or BENCH_PATH) through the
 * bare undici proxy and one or more builds of compute-gateway (`name=path/to/dist/bin.js` arguments; default this
 * checkout's), each run under `valgrind --tool=callgrind` with counting off while BENCH_WARMUP requests (3000) warm
 * it up, then on for BENCH_REQUESTS (2000), at BENCH_CONNECTIONS (10). Three figures: the main thread's instructions
 * (JavaScript, node:http, the event loop, and the garbage collection and compilation done there), the same without
 * its garbage collection (V8's `Heap::CollectGarbage`, inclusive: how many collections fall in the window, and
 * whether a mark-compact is one of them, moves the main thread's figure by 5–15 % from run to run; what V8 still
 * optimizes or deoptimizes in the window moves both by about 5 %, hence the least of the rounds for the ratios), and
 * all threads' (V8's background compilers and GC helpers too, whose share in a window of a few thousand requests
 * varies from run to run). BENCH_NODE_FLAGS adds flags to node's command line: `--single-threaded` makes V8 compile and collect on
 * the main thread, at points that do not depend on how threads are scheduled, so that the counts of two runs agree
 * more closely. Each target is measured BENCH_ROUNDS times (2), the targets interleaved. Needs valgrind.
 *
 *   npx tsx bench/gateway-instructions.ts [name=bin.js ...]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import autocannon from "autocannon";
import { freePort, here, startScript, withProcesses } from "./processes.js";

const path = process.env.BENCH_PATH ?? "/v1/resources/search?query=r10";
const warmup = Number(process.env.BENCH_WARMUP ?? 3000);
const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
const builds = process.argv.slice(2).map((arg) => arg.split("=") as [string, string]);
if (builds.length === 0) builds.push(["compute-gateway", here("../packages/gateway/dist/bin.js")]);
const directory = mkdtempSync(join(tmpdir(), "gateway-instructions-"));

/** Sends `amount` requests; says on stderr how many did not answer 2xx. */
async function load(url: string, amount: number): Promise<void> {
  const result = await autocannon({
    url: url + path,
    headers: { authorization: "Bearer bench-key_123" },
    connections,
    amount,
    // Under valgrind a request takes 50 times as long, more on a busy machine.
    timeout: 120,
  });
  if (result.non2xx + result.errors > 0)
    process.stderr.write(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors of ${amount}\n`);
}

/**
 * Runs node with `args` under callgrind, counting off, and resolves with its origin once it answers: on `port`, or
 * on the port it prints as `ready <port>` on stderr (the bench scripts).
 */
async function startCounted(args: string[], port: number | undefined, out: string) {
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      "--separate-threads=yes",
      `--callgrind-out-file=${out}`,
      "--log-file=/dev/null",
      "node",
      ...nodeFlags,
      ...args,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  for (const deadline = Date.now() + 600_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`${args.join(" ")} did not answer within 600 s: ${stderr}`);
    const listening = port ?? /ready (\d+)/.exec(stderr)?.[1];
    if (listening === undefined) continue;
    const url = `http://127.0.0.1:${listening}`;
    try {
      await fetch(`${url}/healthz`);
      return { child, url };
    } catch {
      // not listening yet
    }
  }
}

/** The instructions a callgrind file counts in V8's garbage collection (`Heap::CollectGarbage`, inclusive). */
function collectionOf(file: string): number {
  const annotated = execFileSync("callgrind_annotate", ["--inclusive=yes", "--threshold=100", file], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = annotated.split("\n").find((l) => l.includes("v8::internal::Heap::CollectGarbage("));
  return Number(/^\s*([\d,]+)/.exec(line ?? "")?.[1]?.replaceAll(",", "") ?? 0);
}

type Counts = [main: number, withoutGc: number, all: number];

/**
 * Instructions per request of one target: the main thread's, the same without garbage collection, and all
 * threads'; warmed up uncounted, then counted.
 */
async function count(args: (port: number) => string[], ownPort: boolean, out: string): Promise<Counts> {
  const port = await freePort();
  const { child, url } = await startCounted(args(port), ownPort ? port : undefined, out);
  try {
    await load(url, warmup);
    execFileSync("callgrind_control", ["--instr=on", String(child.pid)], { stdio: "ignore" });
    await load(url, requests);
    execFileSync("callgrind_control", ["--instr=off", String(child.pid)], { stdio: "ignore" });
  } finally {
    await new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGINT");
    });
  }
  // One file per thread (`out-01` the main thread's), each with the totals of what it ran while counting was on.
  const totals = readdirSync(dirname(out))
    .filter((file) => file.startsWith(`${basename(out)}-`))
    .map(
      (file) =>
        [file, Number(/^totals: (\d+)/m.exec(readFileSync(join(dirname(out), file), "utf8"))?.[1] ?? 0)] as const,
    );
  const mainFile = totals.find(([file]) => file.endsWith("-01"));
  const main = mainFile?.[1] ?? 0;
  const collection = mainFile ? collectionOf(join(dirname(out), mainFile[0])) : 0;
  const all = totals.reduce((sum, [, n]) => sum + n, 0);
  return [main / requests, (main - collection) / requests, all / requests];
}

async function main(): Promise<void> {
  const upstream = await startScript("./upstream.ts", []);
  const targets: [string, (port: number) => string[], boolean][] = [
    ["bare undici proxy", () => ["--import", "tsx", here("./bare-proxy.ts"), upstream], false],
    ...builds.map(([name, bin]): [string, (port: number) => string[], boolean] => [
      name,
      (port) => [bin, "--upstream", upstream, "--port", String(port), "--response-validation", "enforce"],
      true,
    ]),
  ];
  const rows = new Map<string, Counts[]>();
  for (let round = 0; round < rounds; round++)
    for (const [name, args, ownPort] of targets) {
      const perRequest = await count(args, ownPort, join(directory, `${name.replace(/\W+/g, "-")}.${round}.out`));
      rows.set(name, [...(rows.get(name) ?? []), perRequest]);
      process.stderr.write(
        `${name}: ${perRequest.map(Math.round).join(" · ")} (main thread · without GC · all) instructions/request\n`,
      );
    }
  const flags = nodeFlags.length > 0 ? `, node ${nodeFlags.join(" ")}` : "";
  console.log(
    `\nNode ${process.version}${flags}; ${path}; ${connections} connections, ${warmup} warm-up and ${requests} counted requests\n`,
  );
  const figure = (n: number) => Math.round(n).toLocaleString("en");
  const least = (name: string, i: number) => Math.min(...(rows.get(name) ?? []).map((r) => r[i] ?? 0));
  const cells = (name: string, counts: Counts[], i: number) =>
    `${counts.map((c) => figure(c[i] ?? 0)).join(" · ")} | ${(least("bare undici proxy", i) / least(name, i)).toFixed(2)}`;
  console.log("| target | main thread, per round | vs bare | without GC | vs bare | all threads | vs bare |");
  console.log("|---|---|---:|---|---:|---|---:|");
  for (const [name, counts] of rows)
    console.log(`| ${name} | ${cells(name, counts, 0)} | ${cells(name, counts, 1)} | ${cells(name, counts, 2)} |`);
}

await withProcesses(main);
