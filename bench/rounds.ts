/**
 * How the autocannon benchmarks measure: their settings from the environment, each cell warmed up for 1 s, then
 * measured BENCH_ROUNDS times with the targets interleaved round by round, the best round kept (on a small shared
 * machine other load only ever makes a round slower), and the line that says on what machine it ran.
 */
import { cpus, loadavg, totalmem } from "node:os";
import type { Result } from "autocannon";

/** The settings of a run: BENCH_DURATION (s per round), BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_PROFILE, BENCH_ONLY. */
export function benchSettings(defaultConnections: number) {
  return {
    duration: Number(process.env.BENCH_DURATION ?? 3),
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? defaultConnections),
    profile: process.env.BENCH_PROFILE === "1",
    only: new RegExp(process.env.BENCH_ONLY ?? ""),
  };
}

/** One target's best round of one workload. */
export type Row = {
  workload: string;
  target: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
};

/** Measures one workload on each target (name → origin), interleaved; the best round of each, in target order. */
export async function bestOfRounds(
  workload: string,
  targets: [string, string][],
  measure: (url: string, seconds: number) => Promise<Result>,
  { rounds, duration }: { rounds: number; duration: number },
): Promise<Row[]> {
  const best = new Map<string, Row>();
  for (const [, url] of targets) await measure(url, 1); // warm-up: JIT, connection pools
  for (let round = 0; round < rounds; round++) {
    for (const [target, url] of targets) {
      const r = await measure(url, duration);
      const row = {
        workload,
        target,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      };
      if (row.rps > (best.get(target)?.rps ?? -1)) best.set(target, row);
      process.stderr.write(`${workload} · ${target}: ${Math.round(row.rps)} req/s\n`);
    }
  }
  return [...best.values()];
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
const loadBefore = load();

/** The machine, the settings and the load average before and after, for the head of a table. */
export function machineLine({
  connections,
  rounds,
  duration,
}: {
  connections: number;
  rounds: number;
  duration: number;
}) {
  const cpu = cpus();
  return (
    `${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
    `${connections} connections, best of ${rounds} × ${duration} s per cell, targets interleaved; ` +
    `load average before: ${loadBefore}, after: ${load()}`
  );
}
