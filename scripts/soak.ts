/**
 * `npm run soak`: the load and soak test of issue 6 — the stub and a gateway in front of it, each in its own
 * process on 127.0.0.1, and many concurrent clients mixing all three operations, valid and with one constraint
 * broken, for a fixed time (test/adversarial/support/soak.ts). Prints a summary table and the checks, and exits
 * with 1 when a check fails.
 *
 * Usage: tsx --conditions=@compute-api/source scripts/soak.ts [--seconds 30] [--clients 32] [--warmup S] [--rss-bound 64]
 *        [--heap-bound 16] [--seed N]
 * The warm-up defaults to a third of the run; the bounds are in MiB, for each server from after warm-up to the end.
 */
import { parseArgs } from "node:util";
import { formatReport, runSoak } from "../test/adversarial/support/soak.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    clients: { type: "string", default: "32" },
    warmup: { type: "string" },
    "rss-bound": { type: "string", default: "64" },
    "heap-bound": { type: "string", default: "16" },
    seed: { type: "string" },
  },
});

const number = (name: string, value: string | undefined, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) {
    console.error(`--${name} must be a number of at least ${min}, not ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return n;
};

const seconds = number("seconds", values.seconds, 1) ?? 30;
const warmupSeconds = number("warmup", values.warmup, 0);
const report = await runSoak({
  seconds,
  clients: number("clients", values.clients, 2) ?? 32,
  rssBoundMiB: number("rss-bound", values["rss-bound"], 0) ?? 64,
  heapBoundMiB: number("heap-bound", values["heap-bound"], 0) ?? 16,
  seed: number("seed", values.seed, 0) ?? Math.floor(Math.random() * 2 ** 31),
  ...(warmupSeconds === undefined ? {} : { warmupSeconds }),
});
console.log(formatReport(report));
process.exitCode = report.ok ? 0 : 1;
