/**
 * The gateway's hot path against the bare proxy, for profiling: search with 10 results (or BENCH_PATH) through the
 * bare undici proxy and one or more builds of compute-gateway (`name=path/to/dist/bin.js` arguments; default this
 * checkout's), without Prism. Per target and round: requests a second, p50 and p99 latency, and the CPU time its
 * process spent per request (from /proc/<pid>/stat, so less sensitive to the other load of a shared machine than
 * req/s), the targets interleaved round by round; latencies and CPU time as the median of the rounds. Settings as `npm run bench` (BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_DURATION).
 *
 *   npx tsx bench/gateway-cpu.ts [name=bin.js ...]
 */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { freePort, here, pidOf, start, startScript, withProcesses } from "./processes.js";
import { benchSettings, machineLine } from "./rounds.js";

const settings = benchSettings(10);
const path = process.env.BENCH_PATH ?? "/v1/resources/search?query=r10";
const builds = process.argv.slice(2).map((arg) => arg.split("=") as [string, string]);
if (builds.length === 0) builds.push(["compute-gateway", here("../packages/gateway/dist/bin.js")]);
const ticksPerSecond = 100;

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function main(): Promise<void> {
  const upstream = await startScript("./upstream.ts", []);
  const targets: [string, string][] = [["bare undici proxy", await startScript("./bare-proxy.ts", [upstream])]];
  for (const [name, bin] of builds) {
    const port = await freePort();
    const args = [bin, "--upstream", upstream, "--port", String(port), "--response-validation", "enforce"];
    targets.push([name, await start(name, [...args, "--log-level", "info"], `http://127.0.0.1:${port}/healthz`)]);
  }
  const rows = new Map<string, { rps: number[]; cpu: number[]; p50: number[]; p99: number[] }>();
  const run = (url: string, duration: number) =>
    autocannon({
      url: url + path,
      headers: { authorization: "Bearer bench-key_123" },
      connections: settings.connections,
      duration,
    });
  for (const [, url] of targets) await run(url, 1);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [name, url] of targets) {
      const pid = pidOf.get(url) ?? 0;
      const before = cpuSeconds(pid);
      const result = await run(url, settings.duration);
      const cpu = ((cpuSeconds(pid) - before) / result.requests.total) * 1e6;
      const row = rows.get(name) ?? { rps: [], cpu: [], p50: [], p99: [] };
      row.rps.push(result.requests.average);
      row.cpu.push(cpu);
      row.p50.push(result.latency.p50);
      row.p99.push(result.latency.p99);
      rows.set(name, row);
      if (result.non2xx + result.errors > 0)
        console.error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      process.stderr.write(`${name}: ${Math.round(result.requests.average)} req/s, ${cpu.toFixed(1)} µs CPU/request\n`);
    }
  }
  const bare = rows.get("bare undici proxy");
  console.log(`\n${machineLine(settings)}; ${path}\n`);
  console.log("| target | req/s per round | vs bare per round | p50 / p99 ms | CPU µs/request | vs bare |");
  console.log("|---|---|---|---:|---:|---:|");
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (const [name, row] of rows) {
    const ratios = row.rps.map((rps, i) => (rps / (bare?.rps[i] ?? rps)).toFixed(2));
    const cpu = median(row.cpu);
    console.log(
      `| ${name} | ${row.rps.map(Math.round).join(" · ")} | ${ratios.join(" · ")} | ${median(row.p50)} / ${median(row.p99)} | ${cpu.toFixed(1)} | ${(median(bare?.cpu ?? []) / cpu).toFixed(2)} |`,
    );
  }
}

await withProcesses(main);
