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
/** The gateway with tracing configured (OTLP to a local sink), sampling no request or every request. */
const sampledNone = "compute-gateway, traced, sampling 0";
const sampledAll = "compute-gateway, traced, every request";
/** Requests each target was sent over the run, against the spans the sink received. */
const sent = new Map<string, number>();

async function main(): Promise<void> {
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir);
  }
  const upstream = await startScript("./upstream.ts", []);
  const prismPort = await freePort();
  const sink = await startScript("./otlp-sink.ts", []);
  /** Starts compute-gateway with both-way validation and its default logging, with `env` (the OTEL_* variables). */
  const gateway = async (name: string, env: NodeJS.ProcessEnv = {}): Promise<[string, string]> => {
    const port = await freePort();
    const args = [
      "--upstream",
      upstream,
      "--port",
      String(port),
      "--response-validation",
      "enforce",
      "--log-level",
      "info",
    ];
    const prof = [
      "--cpu-prof",
      `--cpu-prof-dir=${profileDir}`,
      `--cpu-prof-name=${name.replace(/\W+/g, "-")}.cpuprofile`,
    ];
    return [
      name,
      await start(name, [...(profile ? prof : []), gatewayBin, ...args], `http://127.0.0.1:${port}/healthz`, env),
    ];
  };
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: sink, OTEL_TRACES_SAMPLER: "parentbased_traceidratio" };
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
    await gateway(gatewayTarget),
    await gateway(sampledNone, { ...traced, OTEL_TRACES_SAMPLER_ARG: "0" }),
    await gateway(sampledAll, { ...traced, OTEL_TRACES_SAMPLER_ARG: "1" }),
  ];
  const rows: Row[] = [];
  for (const workload of workloads.filter((w) => only.test(w.name))) {
    rows.push(
      ...(await bestOfRounds(
        workload.name,
        targets,
        (url, seconds) => count(url, measure(url, workload, seconds)),
        settings,
      )),
    );
  }
  print(rows);
  await printSpans(sink, targets);
}

/** Adds a run's requests to what its target was sent. */
async function count(url: string, run: ReturnType<typeof measure>) {
  const result = await run;
  sent.set(url, (sent.get(url) ?? 0) + result.requests.total);
  return result;
}

/** What the sink received from the traced gateways, once the last batch is out (the SDK sends one every 5 s). */
async function printSpans(sink: string, targets: [string, string][]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const { spans, exports, bytes } = (await (await fetch(`${sink}/count`)).json()) as {
    spans: number;
    exports: number;
    bytes: number;
  };
  const requests = sent.get(targets.find(([name]) => name === sampledAll)?.[1] ?? "") ?? 0;
  console.log(
    `\nOTLP sink: ${spans} spans in ${exports} exports (${Math.round(bytes / 2 ** 20)} MiB) for ${requests} requests ` +
      `traced (${(spans / Math.max(requests, 1)).toFixed(2)} spans per request; 2 unless the SDK dropped some)`,
  );
}

function print(rows: Row[]): void {
  console.log(`\n${machineLine(settings)}\n`);
  console.log("| operation | target | req/s | p50 ms | p99 ms | vs bare proxy | vs Prism | vs untraced |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  const ratio = (row: Row, target: string) => {
    const other = rows.find((r) => r.workload === row.workload && r.target === target);
    return row.target.startsWith("compute-gateway") && row.target !== target && other
      ? `${(row.rps / other.rps).toFixed(2)}×`
      : "";
  };
  for (const row of rows) {
    const note = row.non2xx > 0 ? ` (${row.non2xx} non-2xx)` : row.errors > 0 ? ` (${row.errors} errors)` : "";
    console.log(
      `| ${row.workload} | ${row.target}${note} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${ratio(row, bareTarget)} | ${ratio(row, prismTarget)} | ${ratio(row, gatewayTarget)} |`,
    );
  }
}

await withProcesses(main);
if (profile) summarizeProfiles(profileDir);
