/**
 * The windowed top-k of a search: it walks the ranks in windows, lowest first: in each, every term's plan marks the
 * best score of the entries it matches; the window's entries are then final. It stops as soon as no later entry
 * can score high enough to enter the results.
 * @see openapi/paths/v1_resources_search.yaml
 */

import { maxSearchScore } from "@compute-api/rules";
import type { TermPlan } from "./search-plan.js";

/** A result of the top-k: a rank and its score. */
export type RankedHit = readonly [rank: number, score: number];

/** The best entries of a search over `entries` ranks, with windows of `firstWindow` ranks doubling to `maxWindow`. */
export class WindowedTopK {
  private scratch: { best: Uint8Array; sums: Int32Array; matched: Int32Array } | undefined;

  /** A top-k over ranks 0 to entries - 1. */
  constructor(
    private readonly entries: number,
    private readonly firstWindow: number,
    private readonly maxWindow: number,
  ) {}

  /**
   * The best `limit` entries that every plan matches and that are visible, by score (the mean over the query's
   * `termCount` terms, rounded down; highest first) and then rank.
   */
  search(
    plans: readonly TermPlan[],
    termCount: number,
    limit: number,
    visible: (rank: number) => boolean,
    masked: Uint8Array | undefined,
  ): RankedHit[] {
    // Entries by score; each keeps its first `limit` in rank order, which is all a score can contribute.
    const buckets: number[][] = Array.from({ length: maxSearchScore + 1 }, () => []);
    const n = this.entries;
    this.scratch ??= {
      best: new Uint8Array(Math.min(n, this.maxWindow)),
      sums: new Int32Array(Math.min(n, this.maxWindow)),
      matched: new Int32Array(Math.min(n, this.maxWindow)),
    };
    const { best, sums, matched } = this.scratch;
    let width = this.firstWindow;
    for (let lo = 0; lo < n; ) {
      const hi = Math.min(n, lo + width);
      const span = hi - lo;
      sums.fill(0, 0, span);
      matched.fill(0, 0, span);
      // Every term marks its entries of the window (which also moves its scans on); once a term marks none,
      // no entry of the window can match, and the others only move on.
      let possible = true;
      for (const plan of plans) {
        best.fill(0, 0, span);
        if (plan.mark(lo, hi, best, masked) === 0) possible = false;
        if (!possible) continue;
        const weight = plan.weight;
        for (let i = 0; i < span; i++) {
          const score = best[i] as number;
          if (score === 0) continue;
          sums[i] = (sums[i] as number) + weight * score;
          matched[i] = (matched[i] as number) + 1;
        }
      }
      if (possible) {
        for (let i = 0; i < span; i++) {
          if (matched[i] !== plans.length) continue;
          const bucket = buckets[Math.floor((sums[i] as number) / termCount)] as number[];
          if (bucket.length < limit && visible(lo + i)) bucket.push(lo + i);
        }
      }
      lo = hi;
      width = Math.min(width * 2, this.maxWindow);
      // The results are settled once they hold `limit` entries that score at least what a later one could.
      let bound = 0;
      for (const plan of plans) {
        const later = plan.bestLater();
        if (later === 0) return hits(buckets, limit);
        bound += plan.weight * later;
      }
      let settled = 0;
      for (let score = maxSearchScore; score >= Math.floor(bound / termCount); score--)
        settled += (buckets[score] as number[]).length;
      if (settled >= limit) break;
    }
    return hits(buckets, limit);
  }
}

/** The first `limit` ranks of the buckets, highest score first. */
function hits(buckets: readonly number[][], limit: number): RankedHit[] {
  const ranked: RankedHit[] = [];
  for (let score = maxSearchScore; score >= 0 && ranked.length < limit; score--) {
    for (const rank of buckets[score] as number[]) {
      if (ranked.length >= limit) break;
      ranked.push([rank, score]);
    }
  }
  return ranked;
}
