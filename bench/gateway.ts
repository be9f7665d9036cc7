import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { freePort, here, start, startScript, withProcesses } from "./processes.js";
import { summarizeProfiles } from "./profile-summary.js";
import { benchSettings, bestOfRounds, machineLine, type Row } from "./rounds.js";

const settings = benchSettings(32);
const { connections, profile, only } = settings;
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
    rows.push(
      ...(await bestOfRounds(workload.name, targets, (url, seconds) => measure(url, workload, seconds), settings)),
    );
  }
  print(rows);
}

function print(rows: Row[]): void {
  console.log(`\n${machineLine(settings)}\n`);
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
