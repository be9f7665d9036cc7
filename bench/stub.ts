import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon, { type Request } from "autocannon";
import { freePort, here, start, startScript, withProcesses } from "./processes.js";
import { summarizeProfiles } from "./profile-summary.js";
import { benchSettings, bestOfRounds, machineLine, type Row } from "./rounds.js";

const settings = benchSettings(10);
const { connections, profile, only } = settings;
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
    name: "searchResources, results: the same body from a bare Express app",
    targets: [stubTarget, expressTarget],
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
  const stub = await start(
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
  );
  const origins = new Map<string, string>([
    [stubTarget, stub],
    [
      prismTarget,
      await start(
        "prism",
        [prism, "mock", spec, "--host", "127.0.0.1", "--port", String(prismPort), "--verboseLevel", "warn"],
        `http://127.0.0.1:${prismPort}/`,
      ),
    ],
    // The bare app serves the stub's own answer to query=alpha, fetched from it once.
    [expressTarget, await startScript("./bare-express.ts", [stub, apiKey])],
  ]);
  const found = (await (
    await fetch(`${stub}/v1/resources/search?query=alpha`, { headers: { authorization: `Bearer ${apiKey}` } })
  ).json()) as { results: unknown[] };
  console.log(`query=alpha: ${found.results.length} results from the stub`);

  const rows: Row[] = [];
  for (const workload of workloads.filter((w) => only.test(w.name))) {
    const targets = workload.targets.map((target): [string, string] => [target, origins.get(target) as string]);
    rows.push(
      ...(await bestOfRounds(workload.name, targets, (url, seconds) => measure(url, workload, seconds), settings)),
    );
  }
  print(rows);
}

function print(rows: Row[]): void {
  console.log(`\n${machineLine(settings)}\n`);
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
