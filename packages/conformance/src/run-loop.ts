/**
 * The run itself: the generators in turn, in rounds of cases, until each has given its runs or the time is up.
 * Each round of a generator is sampled from a seed of its own, derived from the run's, so that any case can be
 * replayed from its seed and index.
 */
import fc from "fast-check";
import type { Verdicts } from "./checks.js";
import type { Case, Generator } from "./generators.js";
import type { Exchange } from "./pacing.js";
import type { Replay } from "./results.js";

/** What the loop runs and how long. */
export interface RunLoopOptions {
  generators: readonly Generator[];
  seed: number;
  /** Cases per generator, when no deadline is set. */
  runs: number;
  /** `performance.now()` after which no case is sent; without it, the runs bound the loop. */
  deadline?: number | undefined;
  exchange: Exchange;
  /** Asked after each answer: true ends the run there (the backend can no longer be connected to). */
  stop?: () => boolean;
  /** Hears each case, the verdicts on its answer, and where it came from. */
  onVerdicts(c: Case, verdicts: Verdicts, replay: Replay): void;
}

/** Cases of each generator sampled at a time. */
export const round = 10;

/** The seed of round `r` of generator `g`. */
export const roundSeed = (seed: number, g: number, r: number): number => (seed + g * 7919 + r * 104_729) % 2 ** 31;

/** Sends the cases of the generators in turn and judges each answer. */
export async function runLoop(options: RunLoopOptions): Promise<void> {
  const { generators, seed, runs, deadline } = options;
  const late = () => (deadline !== undefined && performance.now() > deadline) || options.stop?.() === true;
  for (let r = 0; deadline !== undefined || r * round < runs; r++) {
    const batches = generators.map((generator, g) => {
      const count = deadline === undefined ? Math.min(round, runs - r * round) : round;
      return fc
        .sample(generator.arbitrary, { seed: roundSeed(seed, g, r), numRuns: count })
        .map((c, index) => ({ c, replay: { generator, seed: roundSeed(seed, g, r), index } }));
    });
    for (let i = 0; i < round; i++) {
      for (const batch of batches) {
        const item = batch[i];
        if (!item || late()) continue;
        const answer = await options.exchange(item.c.operationId, item.c.request);
        options.onVerdicts(item.c, item.c.judge(answer), item.replay);
      }
    }
    if (late()) break;
  }
}
