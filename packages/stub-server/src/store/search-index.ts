/**
 * The search index: the columns of the resources (search-columns.ts), the plan of a query's terms over their
 * dictionaries (search-plan.ts), the windowed top-k that stops once the best results are settled (search-top-k.ts)
 * and the overlay of the entries refreshed since (search-overlay.ts).
 * @see openapi/paths/v1_resources_search.yaml
 */

import { maxSearchResults, searchValues } from "@compute-api/rules";
import type { ResourceType } from "../types.js";
import { SearchColumns, type SearchEntry, type SearchResource, searchColumns } from "./search-columns.js";
import { defaultBlockValues } from "./search-dictionary.js";
import { defaultOverlayLimit, SearchOverlay } from "./search-overlay.js";
import { otherScores, primaryScores, termPlans } from "./search-plan.js";
import { WindowedTopK } from "./search-top-k.js";
import { runSteps, type Steps } from "./steps.js";

/** Largest number of results of one search: the spec's cap. */
export const maxResults = maxSearchResults;

/** A scored entry. */
export interface SearchHit {
  entry: SearchEntry;
  score: number;
}

/** Options of one search. */
export interface SearchOptions {
  /** Lowercased terms, all of which must match; none means every resource of `type`, with score 0. */
  terms: readonly string[];
  type?: ResourceType | undefined;
  canAccess: (access: string) => boolean;
  limit?: number;
}

/** Sizes of the index's blocks of values, of the search's windows of ranks and of the overlay; tests make them small. */
export interface SearchIndexTuning {
  blockValues?: number;
  firstWindow?: number;
  maxWindow?: number;
  /** Most refreshed entries the overlay holds before it is folded into the dictionaries. */
  overlayLimit?: number;
}

/** The index over a fixed set of resources (the stub creates and deletes none; it updates them). */
export class SearchIndex {
  private readonly columns: SearchColumns;
  private readonly overlay: SearchOverlay;
  private readonly topK: WindowedTopK;

  /**
   * Indexes the resources at once (or takes the columns `building` made); `expected`, about how many they are, sizes
   * the dictionaries' first hash tables.
   */
  constructor(
    resources: Iterable<SearchResource> | SearchColumns,
    tuning: SearchIndexTuning = {},
    expected = Array.isArray(resources) ? resources.length : 0,
  ) {
    this.columns =
      resources instanceof SearchColumns
        ? resources
        : runSteps(searchColumns(resources, tuning.blockValues ?? defaultBlockValues, expected));
    this.overlay = new SearchOverlay(this.size, tuning.overlayLimit ?? defaultOverlayLimit);
    const firstWindow = tuning.firstWindow ?? 4096;
    this.topK = new WindowedTopK(this.size, firstWindow, Math.max(firstWindow, tuning.maxWindow ?? 65536));
  }

  /** The index built in steps (steps.ts): the admin API builds a large one while the stub serves. */
  static *building(
    resources: Iterable<SearchResource>,
    tuning: SearchIndexTuning = {},
    expected = 0,
  ): Steps<SearchIndex> {
    return new SearchIndex(yield* searchColumns(resources, tuning.blockValues ?? defaultBlockValues, expected), tuning);
  }

  /** Number of entries. */
  get size(): number {
    return this.columns.size;
  }

  /** The entry of a resource object, if indexed. */
  entryOf(resource: object): SearchEntry | undefined {
    const rank = this.columns.rankOf(resource);
    return rank === undefined ? undefined : this.columns.entry(rank);
  }

  /** Number of refreshed entries whose search text the overlay holds (at most its limit). */
  get overlaySize(): number {
    return this.overlay.size;
  }

  /**
   * Recomputes an entry's search text after its resource changed. When the overlay is full, the dictionaries are
   * built again from every resource as it is now (the vacuum; work in proportion to the index, once per limit's
   * worth of refreshes) and the overlay is emptied.
   */
  refresh(entry: SearchEntry): void {
    const text = searchValues(entry.resourceType, entry.resourceName, entry.resource);
    if (this.overlay.set(entry.rank, { primary: [...text.primary], other: [...text.other] })) return;
    this.columns.rebuildDictionaries();
    this.overlay.clear();
  }

  /** The best `limit` matches, by score (highest first) and then resourceName (code point order). */
  search({ terms, type, canAccess, limit = maxResults }: SearchOptions): SearchHit[] {
    const { columns } = this;
    const typeId = type === undefined ? -1 : columns.typeNames.indexOf(type);
    if ((type !== undefined && typeId < 0) || limit <= 0) return [];
    // canAccess is asked once per access key of a search.
    const allowed = new Int8Array(columns.accessKeys.length);
    const visible = (rank: number): boolean => {
      if (typeId >= 0 && columns.types[rank] !== typeId) return false;
      const access = columns.accessIds[rank] as number;
      if (allowed[access] === 0) allowed[access] = canAccess(columns.accessKeys[access] as string) ? 1 : -1;
      return allowed[access] === 1;
    };
    if (terms.length === 0) {
      const hits: SearchHit[] = [];
      const ranks = typeId >= 0 ? (columns.byType[typeId] as Int32Array) : undefined;
      const count = ranks ? ranks.length : this.size;
      for (let i = 0; i < count && hits.length < limit; i++) {
        const rank = ranks ? (ranks[i] as number) : i;
        if (visible(rank)) hits.push({ entry: columns.entry(rank), score: 0 });
      }
      return hits;
    }
    const plans = termPlans(
      terms,
      [
        [columns.primary, primaryScores],
        [columns.other, otherScores],
      ],
      (term) => this.overlay.matches(term),
    );
    return this.topK
      .search(plans, terms.length, limit, visible, this.overlay.masked)
      .map(([rank, score]) => ({ entry: columns.entry(rank), score }));
  }
}
