/**
 * The query plan of a search: per distinct term, six streams of ranks (exact, prefix and substring matches in
 * each dictionary, found by lazy scans in value order) and the refreshed entries it matches. A search asks the
 * plans to mark the best score of every entry of a window of ranks, lowest window first, and how high a score they
 * may still give past it.
 * @see openapi/paths/v1_resources_search.yaml
 */

import { matchScores } from "@compute-api/rules";
import type { MatchScores, SearchDictionary, ValueScan } from "./search-dictionary.js";

/** The scores of a term's exact, prefix and substring match of a primary field (id and name): the spec's. */
export const primaryScores: MatchScores = matchScores.primary;
/** The scores of a term's exact, prefix and substring match of another field. */
export const otherScores: MatchScores = matchScores.other;

/** A refreshed entry that a term matches: its rank and its best score. */
export type OverlayMatch = readonly [rank: number, score: number];

/** The entries of one dictionary that hold values of one match class of a term, window by window. */
class PostingStream {
  /** The next value not yet begun, or -1. */
  private pending: number;
  /** Values begun whose later ranks are still to be marked: positions in postings and their ends. */
  private activeFrom: number[] = [];
  private activeEnd: number[] = [];

  constructor(
    readonly score: number,
    private readonly dictionary: SearchDictionary,
    private readonly scan: ValueScan,
  ) {
    this.pending = scan.next();
  }

  /** Whether the stream may still mark an entry. */
  get live(): boolean {
    return this.pending >= 0 || this.activeFrom.length > 0;
  }

  /** Raises `best[rank - lo]` to the score for each unmasked rank below hi; returns how many ranks it marked. */
  mark(lo: number, hi: number, best: Uint8Array, masked: Uint8Array | undefined): number {
    const { offsets, postings } = this.dictionary;
    const { score, activeFrom, activeEnd } = this;
    let marks = 0;
    let kept = 0;
    for (let j = 0; j < activeFrom.length; j++) {
      let at = activeFrom[j] as number;
      const end = activeEnd[j] as number;
      for (; at < end; at++) {
        const rank = postings[at] as number;
        if (rank >= hi) break;
        if (masked !== undefined && masked[rank] === 1) continue;
        if ((best[rank - lo] as number) < score) best[rank - lo] = score;
        marks++;
      }
      if (at < end) {
        activeFrom[kept] = at;
        activeEnd[kept] = end;
        kept++;
      }
    }
    activeFrom.length = kept;
    activeEnd.length = kept;
    // A value's lowest rank never decreases with its id, so the values that begin in this window come next.
    while (this.pending >= 0) {
      let at = offsets[this.pending] as number;
      if ((postings[at] as number) >= hi) break;
      const end = offsets[this.pending + 1] as number;
      for (; at < end; at++) {
        const rank = postings[at] as number;
        if (rank >= hi) break;
        if (masked !== undefined && masked[rank] === 1) continue;
        if ((best[rank - lo] as number) < score) best[rank - lo] = score;
        marks++;
      }
      if (at < end) {
        activeFrom.push(at);
        activeEnd.push(end);
      }
      this.pending = this.scan.next();
    }
    return marks;
  }
}

/** One distinct term of a search: its six match classes and its matches among the refreshed entries. */
export class TermPlan {
  private readonly streams: PostingStream[] = [];
  private next = 0;
  /** The best score of the overlay's matches from each one on, so that bestLater reads it instead of them all. */
  private readonly overlayBestFrom: Uint8Array;

  constructor(
    term: string,
    /** How many times the query holds the term. */
    readonly weight: number,
    dictionaries: readonly [SearchDictionary, MatchScores][],
    /** Ranks of refreshed entries that match, ascending, and their scores. */
    private readonly overlay: readonly OverlayMatch[],
  ) {
    for (const [dictionary, scores] of dictionaries) {
      (["exact", "prefix", "substring"] as const).forEach((match, i) => {
        this.streams.push(new PostingStream(scores[i] as number, dictionary, dictionary.scan(term, match)));
      });
    }
    this.overlayBestFrom = new Uint8Array(overlay.length + 1);
    for (let i = overlay.length - 1; i >= 0; i--)
      this.overlayBestFrom[i] = Math.max(this.overlayBestFrom[i + 1] as number, overlay[i]?.[1] ?? 0);
  }

  /** Marks the best score of each entry of [lo, hi) in `best`; returns how many ranks it marked. */
  mark(lo: number, hi: number, best: Uint8Array, masked: Uint8Array | undefined): number {
    let marks = 0;
    for (const stream of this.streams) marks += stream.mark(lo, hi, best, masked);
    for (; this.next < this.overlay.length; this.next++) {
      const [rank, score] = this.overlay[this.next] as OverlayMatch;
      if (rank >= hi) break;
      if ((best[rank - lo] as number) < score) best[rank - lo] = score;
      marks++;
    }
    return marks;
  }

  /** The highest score the term may still give an entry past the last window, 0 when it can match none. */
  bestLater(): number {
    let best = 0;
    for (const stream of this.streams) if (stream.live && stream.score > best) best = stream.score;
    return Math.max(best, this.overlayBestFrom[this.next] as number);
  }
}

/**
 * The plans of a search's distinct terms, each weighted by how many times the query holds it; `overlayMatches`
 * gives a term's matches among the refreshed entries, ascending by rank.
 */
export function termPlans(
  terms: readonly string[],
  dictionaries: readonly [SearchDictionary, MatchScores][],
  overlayMatches: (term: string) => readonly OverlayMatch[],
): TermPlan[] {
  const weights = new Map<string, number>();
  for (const term of terms) weights.set(term, (weights.get(term) ?? 0) + 1);
  return [...weights].map(([term, weight]) => new TermPlan(term, weight, dictionaries, overlayMatches(term)));
}
