/**
 * The search index's update overlay: the search text of the entries refreshed after their resource changed. The
 * dictionaries still hold those entries' old values; the overlay masks them there and scores the new text instead.
 * @see openapi/paths/v1_resources_search.yaml
 */

import { type OverlayMatch, otherScores, primaryScores } from "./search-plan.js";

/** A resource's search text: its lowercased id and name, and its other top-level string and string-array fields. */
export interface SearchText {
  primary: string[];
  other: string[];
}

/** The best score of term against a search text, 0 when it matches nothing. */
function scoreText({ primary, other }: SearchText, term: string): number {
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

/** Refreshed entries' search text by rank, and the mask of their ranks in the dictionaries. */
export class SearchOverlay {
  private readonly texts = new Map<number, SearchText>();
  /** 1 at the ranks whose values in the dictionaries are stale; undefined until an entry is refreshed. */
  masked: Uint8Array | undefined;

  /** An overlay of an index of `entries` entries. */
  constructor(private readonly entries: number) {}

  /** Number of refreshed entries. */
  get size(): number {
    return this.texts.size;
  }

  /** Sets the search text of the entry at a rank. */
  set(rank: number, text: SearchText): void {
    this.texts.set(rank, text);
    this.masked ??= new Uint8Array(this.entries);
    this.masked[rank] = 1;
  }

  /** For one search: a function that gives a term's matches among the refreshed entries, ascending by rank. */
  matcher(): (term: string) => OverlayMatch[] {
    const overlay = [...this.texts].sort(([a], [b]) => a - b);
    return (term) =>
      overlay.flatMap(([rank, text]) => {
        const score = scoreText(text, term);
        return score > 0 ? [[rank, score] as const] : [];
      });
  }
}
