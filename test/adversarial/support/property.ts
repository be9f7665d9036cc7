/**
 * How the property tests run: seeded and reproducible. `FC_SEED` (and `FC_PATH`, to replay one shrunk case)
 * fix the random choices, `FC_RUNS` sets the number of cases per property (default: a small number, so that
 * `npm test` stays quick). A failure reports its seed, path and the command that replays it.
 * Outcomes are counted per label and, when `FC_STATS_FILE` is set, appended to it as JSON lines for
 * `npm run fuzz` to summarize.
 */
import { appendFileSync } from "node:fs";
import fc from "fast-check";

/** The seed of this run: `FC_SEED`, or one drawn now (and reported with any failure). */
export const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Cases per property: `FC_RUNS`, or the suite's default. */
export const runs = (defaultRuns: number): number => Number(process.env.FC_RUNS) || defaultRuns;

/** Checks an async property; throws with fast-check's report and the command that replays the failure. */
export async function checkProperty<T>(
  file: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  defaultRuns: number,
): Promise<void> {
  const path = process.env.FC_PATH;
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), {
    numRuns: runs(defaultRuns),
    seed,
    ...(path ? { path } : {}),
    // Shrinking replays requests against a stateful server; a bounded number of steps keeps a failure quick.
    endOnFailure: false,
    interruptAfterTimeLimit: 5 * 60_000,
  });
  if (details.failed) {
    // The servers keep state, so the whole run replays exactly; the path jumps to the case (state may differ).
    const replay = `FC_SEED=${details.seed} npx vitest run ${file}   (FC_PATH=${details.counterexamplePath ?? ""} jumps to the case)`;
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${fc.defaultReportMessage(details)}\n\nFailure: ${cause}\n\nReplay: ${replay}`);
  }
}

const counts = new Map<string, number>();

/** Counts one outcome, such as `stub updateClusterMachine 200`. */
export function count(label: string): void {
  counts.set(label, (counts.get(label) ?? 0) + 1);
}

/** Appends the counts to `FC_STATS_FILE` (if set) and clears them; call from afterAll. */
export function flushCounts(): void {
  const file = process.env.FC_STATS_FILE;
  if (file && counts.size > 0) appendFileSync(file, `${JSON.stringify(Object.fromEntries(counts))}\n`);
  counts.clear();
}
