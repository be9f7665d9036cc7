/**
 * `npm run bench:stub`: autocannon on 127.0.0.1 against the stub (`compute-stub` from dist/, built-in data, every
 * request and response validated, logging at `warn`) beside its peer, Stoplight Prism's mock of the same spec
 * (`prism mock generated/openapi.json`, its request validation, logging at `warn` too), and a bare Express app
 * answering /healthz's JSON — for search with results (`query=alpha`), search with no match, the PATCH, the POST
 * (each request a new key id, for both targets) and /healthz. Each cell is warmed up for 1 s, then measured
 * BENCH_ROUNDS times (default 3), the targets interleaved round by round, and the best round is kept: on a small
 * shared machine other load only ever makes a round slower. Prints req/s, p50 and p99 latency, and the stub's
 * ratio to Prism (to the bare Express app for /healthz).
 *
 * BENCH_DURATION (s per round, default 3), BENCH_CONNECTIONS (default 10); BENCH_ONLY (a regular expression) runs
 * only the operations whose name matches; BENCH_PROFILE=1 also records a CPU profile of the stub (in
 * $TMPDIR/compute-stub-profiles) and prints where its time goes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon, { type Request } from "autocannon";
import { summarizeProfiles } from "./profile-summary.js";

const duration = Number(process.env.BENCH_DURATION ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const profile = process.env.BENCH_PROFILE === "1";
const only = new RegExp(process.env.BENCH_ONLY ?? "");
const loadBefore = loadavg()
  .map((n) => n.toFixed(1))
  .join(" ");
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const profileDir = join(tmpdir(), "compute-stub-profiles");
const spec = here("../generated/openapi.json");
const prism = here("../node_modules/@stoplight/prism-cli/dist/index.js");
const stubBin = here("../packages/stub-server/dist/bin.js");
const apiKey = "cak_bench-key";

const children: ChildProcess[] = [];

/** A port that was free a moment ago, for the servers whose port is given on their command line. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a process (its output discarded) and resolves with its origin once `url` answers. */
async function start(name: string, args: string[], url: string): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let err = "";
  child.stderr!.on("data", (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${err}`);
    try {
      await fetch(url);
      return new URL(url).origin;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not answer at ${url} within 60 s: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Starts a bench script that prints `ready <port>` on stderr. */
function startScript(script: string): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", here(script)], { stdio: ["ignore", "ignore", "pipe"] });
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
