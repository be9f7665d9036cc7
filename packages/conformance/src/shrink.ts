/**
 * Shrinking: each first failure is replayed from its seed and index, and fast-check makes the request smaller,
 * sending each candidate again, until it is as small as still fails the same check.
 */
import fc from "fast-check";
import type { RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";
import type { PendingResult } from "./results.js";

/** How long all shrinking may take, in ms. */
export const shrinkBudgetMs = 30_000;

/** Shrinks the first failure of each result, within the budget; sets `failure.shrunk` where it could. */
export async function shrinkFailures(
  results: Iterable<PendingResult>,
  exchange: Exchange,
  budgetMs = shrinkBudgetMs,
): Promise<void> {
  const until = performance.now() + budgetMs;
  for (const result of results) {
    if (!result.replay || !result.failure || performance.now() > until) continue;
    const { generator, seed, index } = result.replay;
    let last: { request: RawRequest; message: string } | undefined;
    const details = await fc.check(
      fc.asyncProperty(generator.arbitrary, async (c) => {
        const verdict = c.judge(await exchange(c.operationId, c.request))[result.check];
        if (verdict) last = { request: c.request, message: verdict };
        return !verdict;
      }),
      {
        seed,
        path: String(index),
        interruptAfterTimeLimit: Math.max(1000, Math.min(10_000, until - performance.now())),
        markInterruptAsFailure: false,
      },
    );
    if (details.failed && last) result.failure.shrunk = { ...last, steps: details.numShrinks };
  }
}
