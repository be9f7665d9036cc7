import { mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { freePort, here, start, startScript, withProcesses } from "./processes.js";
import { summarizeProfiles } from "./profile-summary.js";

const duration = Number(process.env.BENCH_DURATION ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const profile = process.env.BENCH_PROFILE === "1";
const only = new RegExp(process.env.BENCH_ONLY ?? "");
const loadBefore = loadavg()
  .map((n) => n.toFixed(1))
  .join(" ");
const profileDir = join(tmpdir(), "compute-gateway-profiles");
const spec = here("../generated/openapi.json");
const prism = here("../node_modules/@stoplight/prism-cli/dist/index.js");
const gatewayBin = here("../packages/gateway/dist/bin.js");

const workloads: { name: string; method: string; path: string; body?: string; headers?: Record<string, string> }[] = [
  { name: "searchResources, 10 results", method: "GET", path: "/v1/resources/search?query=r10" },
  { name: "searchResources, 100 results", method: "GET", path: "/v1/resources/search?query=r100" },
  {
    name: "searchResources, 100 results, gzip",
    method: "GET",
    path: "/v1/resources/search?query=r100",
    headers: { "accept-encoding": "gzip" },
  },
  {
    name: "updateClusterMachine",
    method: "PATCH",
    path: "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01",
    body: '{"powerState":"POWERING_ON","priceHr":{"value":"2.50"}}',
  },
  { name: "createApiKey", method: "POST", path: "/v1/api-keys", body: '{"apikeyId":"bench-key"}' },
];

type Row = { workload: string; target: string; rps: number; p50: number; p99: number; non2xx: number; errors: number };

function measure(url: string, workload: (typeof workloads)[number], seconds: number) {
  return autocannon({
    url: url + workload.path,
    method: workload.method,
    headers: {
      authorization: "Bearer bench-key_123",
      ...(workload.body ? { "content-type": "application/json" } : {}),
      ...workload.headers,
    },
    ...(workload.body ? { body: workload.body } : {}),
    connections,
    duration: seconds,
  });
}

const gatewayTarget = "compute-gateway, both ways";
const prismTarget = "Prism proxy --errors";
const bareTarget = "bare undici proxy";

async function main(): Promise<void> {
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir);
  }
  const upstream = await startScript("./upstream.ts", []);
  const [prismPort, gatewayPort] = [await freePort(), await freePort()];
  const targets: [string, string][] = [
    ["direct", upstream],
    [bareTarget, await startScript("./bare-proxy.ts", [upstream])],
    [
      prismTarget,
      await start(
        "prism",
        [prism, "proxy", spec, upstream, "--errors", "--host", "127.0.0.1", "--port", String(prismPort)],
        `http://127.0.0.1:${prismPort}/`,
      ),
    ],
    [
      gatewayTarget,
      await start(
        "compute-gateway",
        [
          ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
          gatewayBin,
          "--upstream",
          upstream,
          "--port",
          String(gatewayPort),
          "--response-validation",
          "enforce",
          "--log-level",
          "info",
        ],
        `http://127.0.0.1:${gatewayPort}/healthz`,
      ),
    ],
  ];
  const rows: Row[] = [];
  for (const workload of workloads.filter((w) => only.test(w.name))) {
    const best = new Map<string, Row>();
    for (const [, url] of targets) await measure(url, workload, 1); // warm-up: JIT, connection pools
    for (let round = 0; round < rounds; round++) {
      for (const [target, url] of targets) {
        const r = await measure(url, workload, duration);
        const row = {
          workload: workload.name,
          target,
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
        };
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
      `${connections} connections, best of ${rounds} × ${duration} s per cell, targets interleaved; load average before: ${loadBefore}\n`,
  );
  console.log("| operation | target | req/s | p50 ms | p99 ms | vs bare proxy | vs Prism |");
  console.log("|---|---|---:|---:|---:|---:|---:|");
  const ratio = (row: Row, target: string) => {
    const other = rows.find((r) => r.workload === row.workload && r.target === target);
    return row.target === gatewayTarget && other ? `${(row.rps / other.rps).toFixed(2)}×` : "";
  };
  for (const row of rows) {
    const note = row.non2xx > 0 ? ` (${row.non2xx} non-2xx)` : row.errors > 0 ? ` (${row.errors} errors)` : "";
    console.log(
      `| ${row.workload} | ${row.target}${note} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${ratio(row, bareTarget)} | ${ratio(row, prismTarget)} |`,
    );
  }
}

await withProcesses(main);
if (profile) summarizeProfiles(profileDir);
