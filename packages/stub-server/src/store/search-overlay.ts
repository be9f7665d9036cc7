/**
 * The search index's update overlay: the search text of the entries refreshed after their resource changed. The
 * dictionaries still hold those entries' old values; the overlay masks them there and scores the new text instead.
 * It is bounded: once it would hold more than its limit, the index folds it into the dictionaries (a vacuum).
 * @see openapi/paths/v1_resources_search.yaml
 */

import { separator } from "./search-dictionary.js";
import { type OverlayMatch, otherScores, primaryScores } from "./search-plan.js";

/** A resource's search text: its lowercased id and name, and its other top-level string and string-array fields. */
export interface SearchText {
  primary: string[];
  other: string[];
}

/** A search text and all its values joined by the separator, which no term holds. */
interface OverlayText extends SearchText {
  joined: string;
}

/** The best score of term against a search text, 0 when it matches nothing. */
function scoreText({ primary, other, joined }: OverlayText, term: string): number {
  // Most texts hold no term at all: one search of their joined values tells.
  if (!joined.includes(term)) return 0;
  let best = 0;
  for (const [values, [exact, prefix, substring]] of [
    [primary, primaryScores],
    [other, otherScores],
  ] as const) {
    for (const value of values) {
      const score = value === term ? exact : value.startsWith(term) ? prefix : value.includes(term) ? substring : 0;
      if (score > best) best = score;
    }
  }
  return best;
}

/**
 * The most entries the overlay holds by default. A search scores every overlay text once per term (some 0.2 µs
 * each, more when the term occurs in it): 4,096 of them add at most a few milliseconds, at any size of index. A
 * vacuum rebuilds the dictionaries, work in proportion to the index (0.5 s at 100,000 entries, 6 to 12 s at a
 * million), once per 4,096 refreshes of distinct entries. A fraction of the index instead (n/16) would make the
 * vacuum rarer but cost a search at a million 25 to 110 ms more once the overlay is full: searches are the common
 * request, and the stub's PATCH refreshes nothing (it cannot change a search value).
 */
export const defaultOverlayLimit = 4096;

/** Refreshed entries' search text, ascending by rank, and the mask of their ranks in the dictionaries. */
export class SearchOverlay {
  /** Ranks of the refreshed entries, ascending; kept sorted, so that a search neither copies nor sorts them. */
  private readonly ranks: number[] = [];
  /** The search text of each, in the same order. */
  private readonly texts: OverlayText[] = [];
  /** 1 at the ranks whose values in the dictionaries are stale; undefined until an entry is refreshed. */
  masked: Uint8Array | undefined;

  /** An overlay of an index of `entries` entries that holds at most `limit` of them. */
  constructor(
    private readonly entries: number,
    readonly limit: number = defaultOverlayLimit,
  ) {}

  /** Number of refreshed entries. */
  get size(): number {
    return this.ranks.length;
  }

  /** Sets the search text of the entry at a rank; false when the overlay is full and must be folded first. */
  set(rank: number, { primary, other }: SearchText): boolean {
    const text = { primary, other, joined: [...primary, ...other].join(separator) };
    const { ranks } = this;
    let lo = 0;
    let hi = ranks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ranks[mid] as number) < rank) lo = mid + 1;
      else hi = mid;
    }
    if (ranks[lo] === rank) {
      this.texts[lo] = text;
      return true;
    }
    if (ranks.length >= this.limit) return false;
    ranks.splice(lo, 0, rank);
    this.texts.splice(lo, 0, text);
    this.masked ??= new Uint8Array(this.entries);
    this.masked[rank] = 1;
    return true;
  }

  /** Empties the overlay, once the dictionaries hold every entry's current values. */
  clear(): void {
    this.ranks.length = 0;
    this.texts.length = 0;
    this.masked = undefined;
  }

  /** A term's matches among the refreshed entries, ascending by rank. */
  matches(term: string): OverlayMatch[] {
    const found: OverlayMatch[] = [];
    this.ranks.forEach((rank, i) => {
      const score = scoreText(this.texts[i] as OverlayText, term);
      if (score > 0) found.push([rank, score]);
    });
    return found;
  }
}
