import { mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import autocannon, { type Request } from "autocannon";
import { freePort, here, start, startScript, withProcesses } from "./processes.js";
import { summarizeProfiles } from "./profile-summary.js";

const duration = Number(process.env.BENCH_DURATION ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const profile = process.env.BENCH_PROFILE === "1";
const only = new RegExp(process.env.BENCH_ONLY ?? "");
const loadBefore = loadavg()
  .map((n) => n.toFixed(1))
  .join(" ");
const profileDir = join(tmpdir(), "compute-stub-profiles");
const spec = here("../generated/openapi.json");
const prism = here("../node_modules/@stoplight/prism-cli/dist/index.js");
const stubBin = here("../packages/stub-server/dist/bin.js");
const apiKey = "cak_bench-key";

const stubTarget = "compute-stub";
const prismTarget = "Prism mock";
const expressTarget = "bare Express app";

/** Key ids unique across the whole run (createApiKey answers 409 for an id the user already has). */
let keyCount = 0;
const newKey = (request: Request): Request => ({ ...request, body: `{"apikeyId":"bench-${++keyCount}"}` });

interface Workload {
  name: string;
  /** The targets it runs against; the first is the stub, the second what it is compared with. */
  targets: [string, string];
  request: Request;
}

const workloads: Workload[] = [
  {
    name: "searchResources, results (query=alpha)",
    targets: [stubTarget, prismTarget],
    request: { method: "GET", path: "/v1/resources/search?query=alpha" },
  },
  {
    name: "searchResources, no match",
    targets: [stubTarget, prismTarget],
    request: { method: "GET", path: "/v1/resources/search?query=nothing-matches-this" },
  },
  {
    name: "updateClusterMachine",
    targets: [stubTarget, prismTarget],
    request: {
      method: "PATCH",
      path: "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01",
      body: '{"powerState":"POWERING_ON","priceHr":{"value":"2.50"}}',
    },
  },
  {
    name: "createApiKey (a new id each)",
    targets: [stubTarget, prismTarget],
    request: { method: "POST", path: "/v1/api-keys", setupRequest: newKey },
  },
  { name: "/healthz", targets: [stubTarget, expressTarget], request: { method: "GET", path: "/healthz" } },
];

type Row = { workload: string; target: string; rps: number; p50: number; p99: number; non2xx: number; errors: number };

function measure(url: string, workload: Workload, seconds: number) {
  const { request } = workload;
  return autocannon({
    url: url + (request.path ?? "/"),
    requests: [
      {
        ...request,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(request.method === "GET" ? {} : { "content-type": "application/json" }),
        },
      },
    ],
    connections,
    duration: seconds,
  });
}

async function main(): Promise<void> {
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir);
  }
  const [prismPort, stubPort] = [await freePort(), await freePort()];
  const origins = new Map<string, string>([
    [
      stubTarget,
      await start(
        "compute-stub",
        [
          ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
          stubBin,
          "--port",
          String(stubPort),
          "--api-key",
          apiKey,
          "--log-level",
          "warn",
        ],
        `http://127.0.0.1:${stubPort}/healthz`,
      ),
    ],
    [
      prismTarget,
      await start(
        "prism",
        [prism, "mock", spec, "--host", "127.0.0.1", "--port", String(prismPort), "--verboseLevel", "warn"],
        `http://127.0.0.1:${prismPort}/`,
      ),
    ],
    [expressTarget, await startScript("./bare-express.ts")],
  ]);
  const stub = origins.get(stubTarget) as string;
  const found = (await (
    await fetch(`${stub}/v1/resources/search?query=alpha`, { headers: { authorization: `Bearer ${apiKey}` } })
  ).json()) as { results: unknown[] };
  console.log(`query=alpha: ${found.results.length} results from the stub`);

  const rows: Row[] = [];
  for (const workload of workloads.filter((w) => only.test(w.name))) {
    const best = new Map<string, Row>();
    for (const target of workload.targets) await measure(origins.get(target) as string, workload, 1); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const target of workload.targets) {
        const r = await measure(origins.get(target) as string, workload, duration);
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
      `${connections} connections, best of ${rounds} × ${duration} s per cell, targets interleaved; load average before: ${loadBefore}, after: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(" ")}\n`,
  );
  console.log("| operation | target | req/s | p50 ms | p99 ms | stub vs peer |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) {
    const workload = workloads.find((w) => w.name === row.workload);
    const peer = rows.find((r) => r.workload === row.workload && r.target === workload?.targets[1]);
    const ratio = row.target === stubTarget && peer ? `${(row.rps / peer.rps).toFixed(2)}×` : "";
    const note = row.non2xx > 0 ? ` (${row.non2xx} non-2xx)` : row.errors > 0 ? ` (${row.errors} errors)` : "";
    console.log(
      `| ${row.workload} | ${row.target}${note} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${ratio} |`,
    );
  }
}

await withProcesses(main);
if (profile) summarizeProfiles(profileDir);
