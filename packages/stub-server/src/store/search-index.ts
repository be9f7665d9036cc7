/**
 * The search index. Entries are ranked by resourceName (code point order) once; each keeps its lowercased
 * search text — primary fields (id, name) and other fields — and two dictionaries map every distinct value to
 * the ranks that hold it. A term is scored by scanning the distinct values, not the resources; the results
 * are then collected in rank order, so each score needs only its first `limit` entries.
 * @see openapi/paths/v1_resources_search.yaml
 */

import { compareCodePoints } from "@compute-api/contract";
import type { ResourceType } from "../types.js";
import { type MatchScores, SearchDictionary } from "./search-dictionary.js";

/** Largest number of results of one search. */
export const maxResults = 100;

const primaryScores: MatchScores = [100, 80, 60];
const otherScores: MatchScores = [50, 40, 30];

/** A resource to index. */
export interface SearchResource {
  readonly resourceType: ResourceType;
  readonly resourceName: string;
  /** What the caller must hold to see the entry: `p:<projectId>` or `b:<billingAccountId>`. */
  readonly access: string;
  /** The live resource object; results show it as it is at the time of the search. */
  readonly resource: Record<string, unknown>;
}

/** One indexed resource with its search text. */
export interface SearchEntry extends SearchResource {
  readonly rank: number;
  /** Distinct lowercased id and name (`displayName` of a billing account). */
  primary: Set<string>;
  /** Distinct lowercased other top-level string and string-array fields, and resourceName. */
  other: Set<string>;
}

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

/** Splits a resource's string fields into primary (id, name) and other fields, lowercased. */
function searchText(r: SearchResource): Pick<SearchEntry, "primary" | "other"> {
  const nameField = r.resourceType === "billingAccount" ? "displayName" : "name";
  const primary = new Set<string>();
  const other = new Set<string>([r.resourceName.toLowerCase()]);
  for (const [key, value] of Object.entries(r.resource)) {
    const target = key === "id" || key === nameField ? primary : other;
    if (typeof value === "string") target.add(value.toLowerCase());
    else if (Array.isArray(value))
      for (const item of value) if (typeof item === "string") target.add(item.toLowerCase());
  }
  return { primary, other };
}

/** The index over a fixed set of resources (the stub creates and deletes none; it updates them). */
export class SearchIndex {
  private readonly entries: SearchEntry[];
  private readonly byResource = new Map<object, SearchEntry>();
  private readonly byType = new Map<ResourceType, SearchEntry[]>();
  private readonly primary = new SearchDictionary();
  private readonly other = new SearchDictionary();
  private scratch: { best: Uint8Array; sums: Uint16Array; matched: Uint8Array; touched: Int32Array } | undefined;

  constructor(resources: Iterable<SearchResource>) {
    this.entries = [...resources]
      .sort((a, b) => compareCodePoints(a.resourceName, b.resourceName))
      .map((r, rank) => ({ ...r, rank, ...searchText(r) }));
    for (const entry of this.entries) {
      this.byResource.set(entry.resource, entry);
      const list = this.byType.get(entry.resourceType) ?? [];
      list.push(entry);
      this.byType.set(entry.resourceType, list);
      for (const value of entry.primary) this.primary.add(value, entry.rank);
      for (const value of entry.other) this.other.add(value, entry.rank);
    }
    this.primary.pack();
    this.other.pack();
  }

  /** Number of entries. */
  get size(): number {
    return this.entries.length;
  }

  /** The entry of a resource object, if indexed. */
  entryOf(resource: object): SearchEntry | undefined {
    return this.byResource.get(resource);
  }

  /** Recomputes an entry's search text after its resource changed. */
  refresh(entry: SearchEntry): void {
    const next = searchText(entry);
    for (const [dictionary, before, after] of [
      [this.primary, entry.primary, next.primary],
      [this.other, entry.other, next.other],
    ] as const) {
      for (const value of before) if (!after.has(value)) dictionary.remove(value, entry.rank);
      for (const value of after) if (!before.has(value)) dictionary.add(value, entry.rank);
      dictionary.pack();
    }
    entry.primary = next.primary;
    entry.other = next.other;
  }

  /** The best `limit` matches, by score (highest first) and then resourceName (code point order). */
  search({ terms, type, canAccess, limit = maxResults }: SearchOptions): SearchHit[] {
    const visible = (e: SearchEntry): boolean => (type === undefined || e.resourceType === type) && canAccess(e.access);
    if (terms.length === 0) {
      const hits: SearchHit[] = [];
      for (const entry of (type ? this.byType.get(type) : this.entries) ?? []) {
        if (hits.length >= limit) break;
        if (visible(entry)) hits.push({ entry, score: 0 });
      }
      return hits;
    }

    const n = this.entries.length;
    // Scratch arrays with a slot per entry, shared by all searches (each runs to its end synchronously) and
    // zeroed after each: allocating them per search would keep the collector busy with a large index.
    this.scratch ??= {
      best: new Uint8Array(n),
      sums: new Uint16Array(n),
      matched: new Uint8Array(n),
      touched: new Int32Array(n),
    };
    const { best, sums, matched, touched } = this.scratch;
    try {
      for (const term of terms) {
        // Each term scores its best match per entry.
        let count = this.primary.score(term, primaryScores, best, touched, 0);
        count = this.other.score(term, otherScores, best, touched, count);
        if (count === 0) return [];
        for (let i = 0; i < count; i++) {
          const rank = touched[i] as number;
          sums[rank] = (sums[rank] as number) + (best[rank] as number);
          matched[rank] = (matched[rank] as number) + 1;
          best[rank] = 0;
        }
      }
      return this.collect(terms.length, limit, visible);
    } finally {
      best.fill(0);
      sums.fill(0);
      matched.fill(0);
    }
  }

  /** The entries that matched every term, best first, in rank order within a score. */
  private collect(termCount: number, limit: number, visible: (e: SearchEntry) => boolean): SearchHit[] {
    const { sums, matched } = this.scratch as NonNullable<typeof this.scratch>;
    const buckets: SearchHit[][] = Array.from({ length: 101 }, () => []);
    // Walking the ranks in order visits entries in resourceName order, so each score keeps its first `limit`.
    for (let rank = 0; rank < matched.length; rank++) {
      if (matched[rank] !== termCount) continue;
      const entry = this.entries[rank] as SearchEntry;
      const score = Math.floor((sums[rank] as number) / termCount);
      const bucket = buckets[score] as SearchHit[];
      if (bucket.length < limit && visible(entry)) bucket.push({ entry, score });
    }
    const hits: SearchHit[] = [];
    for (let score = 100; score >= 0 && hits.length < limit; score--) {
      for (const hit of buckets[score] as SearchHit[]) {
        if (hits.length >= limit) break;
        hits.push(hit);
      }
    }
    return hits;
  }
}
