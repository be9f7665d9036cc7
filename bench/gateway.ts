/**
 * `npm run bench`: autocannon on 127.0.0.1 against a minimal upstream — direct, through a bare undici proxy, and
 * through the gateway with no validation, requests only, and both ways — for each operation and for search
 * responses of 10, 100 and 1,000 results. Prints a table of req/s and p50/p99 latency. Each cell is warmed up
 * for 1 s, then measured BENCH_ROUNDS times (default 2, alternating between the targets), and the best round is
 * kept: on a small shared machine, other load only ever makes a round slower.
 *
 * BENCH_DURATION (s per round, default 2), BENCH_CONNECTIONS (default 32); BENCH_ONLY (a regular expression) runs
 * only the operations whose name matches; BENCH_PROFILE=1 records CPU profiles of the gateways while they serve
 * (in $TMPDIR/compute-gateway-profiles) and prints where their time goes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { summarizeProfiles } from "./profile-summary.js";

const duration = Number(process.env["BENCH_DURATION"] ?? 2);
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 2);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 32);
const profile = process.env["BENCH_PROFILE"] === "1";
const only = new RegExp(process.env["BENCH_ONLY"] ?? "");
const loadBefore = loadavg().map((n) => n.toFixed(1)).join(" ");
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const profileDir = join(tmpdir(), "compute-gateway-profiles");

const children: ChildProcess[] = [];

/** Starts a bench script in its own process and resolves its port once it prints `ready <port>` on stderr. */
function start(script: string, args: string[]): Promise<string> {
  const env = profile ? { ...process.env, PROFILE_DIR: profileDir } : process.env;
  const child = spawn(process.execPath, ["--import", "tsx", here(script), ...args], { stdio: ["ignore", "ignore", "pipe"], env });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const port = /ready (\d+)/.exec(err)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}: ${err}`)));
  });
}

const workloads = [
  { name: "updateClusterMachine", method: "PATCH", path: "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01", body: '{"powerState":"POWERING_ON","priceHr":{"value":"2.50"}}' },
  { name: "createApiKey", method: "POST", path: "/v1/api-keys", body: '{"apikeyId":"bench-key"}' },
  { name: "searchResources, 10 results", method: "GET", path: "/v1/resources/search?query=r10" },
  { name: "searchResources, 100 results", method: "GET", path: "/v1/resources/search?query=r100" },
  { name: "searchResources, 1,000 results", method: "GET", path: "/v1/resources/search?query=r1000" },
];

type Row = { workload: string; target: string; rps: number; p50: number; p99: number; non2xx: number; errors: number };

async function measure(url: string, workload: (typeof workloads)[number], seconds: number) {
  return autocannon({
    url: url + workload.path,
    method: workload.method,
    headers: { authorization: "Bearer bench-key_123", ...(workload.body ? { "content-type": "application/json" } : {}) },
    ...(workload.body ? { body: workload.body } : {}),
    connections,
    duration: seconds,
  });
}

async function main(): Promise<void> {
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir);
  }
  const upstream = await start("./upstream.ts", []);
  const targets: [string, string][] = [
    ["direct", upstream],
    ["bare undici proxy", await start("./bare-proxy.ts", [upstream])],
    ["gateway, no validation", await start("./gateway-target.ts", [upstream, "off"])],
    ["gateway, requests only", await start("./gateway-target.ts", [upstream, "requests"])],
    ["gateway, both ways", await start("./gateway-target.ts", [upstream, "both"])],
  ];
  const rows: Row[] = [];
  for (const workload of workloads.filter((w) => only.test(w.name))) {
    const best = new Map<string, Row>();
    for (const [, url] of targets) await measure(url, workload, 1); // warm-up: JIT, connection pools
    for (let round = 0; round < rounds; round++) {
      for (const [target, url] of targets) {
        const r = await measure(url, workload, duration);
        const row = { workload: workload.name, target, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
        if (row.rps > (best.get(target)?.rps ?? -1)) best.set(target, row);
        process.stderr.write(`${workload.name} · ${target}: ${Math.round(row.rps)} req/s\n`);
      }
    }
    rows.push(...best.values());
  }
  print(rows);
}

function print(rows: Row[]): void {
  const cpu = cpus();
  console.log(
    `\n${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
      `${connections} connections, best of ${rounds} × ${duration} s per cell; load average before: ${loadBefore}\n`,
  );
  console.log("| operation | target | req/s | p50 ms | p99 ms | vs bare proxy |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) {
    const bare = rows.find((r) => r.workload === row.workload && r.target === "bare undici proxy");
    const ratio = row.target.startsWith("gateway") && bare ? `${((row.rps / bare.rps) * 100).toFixed(0)} %` : "";
    const note = row.non2xx > 0 ? ` (${row.non2xx} non-2xx)` : row.errors > 0 ? ` (${row.errors} errors)` : "";
    console.log(`| ${row.workload} | ${row.target}${note} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${ratio} |`);
  }
}

try {
  await main();
} finally {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(undefined);
          child.once("exit", resolve);
          child.kill("SIGTERM");
        }),
    ),
  );
}
if (profile) summarizeProfiles(profileDir);
