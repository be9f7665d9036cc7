/**
 * The search index. Entries are ranked by resourceName (code point order) once and kept as arrays by rank; two
 * dictionaries (primary fields — id and name — and other fields) map every distinct lowercased value to the
 * ranks that hold it. A search walks the ranks in windows, lowest first: in each, every term marks the best score
 * of the values that match it, found by lazy scans of the dictionaries in value order; the window's entries are
 * then final. It stops as soon as no later entry can score high enough to enter the results.
 * @see openapi/paths/v1_resources_search.yaml
 */

import { searchValues, visitSearchFields } from "@compute-api/server";
import type { ResourceType } from "../types.js";
import { nameOrder } from "./name-order.js";
import { defaultBlockValues, type MatchScores, type SearchDictionary, type ValueScan } from "./search-dictionary.js";
import { SearchDictionaryBuilder } from "./search-dictionary-builder.js";

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

/** One indexed resource and its rank (its place in resourceName order). */
export interface SearchEntry extends SearchResource {
  readonly rank: number;
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

/** Sizes of the index's blocks of values and of the search's windows of ranks; tests make them small. */
export interface SearchIndexTuning {
  blockValues?: number;
  firstWindow?: number;
  maxWindow?: number;
}

/** A resource's search text: its lowercased id and name, and its other top-level string and string-array fields. */
interface SearchText {
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
class TermPlan {
  private readonly streams: PostingStream[] = [];
  private next = 0;

  constructor(
    term: string,
    /** How many times the query holds the term. */
    readonly weight: number,
    dictionaries: readonly [SearchDictionary, MatchScores][],
    /** Ranks of refreshed entries that match, ascending, and their scores. */
    private readonly overlay: readonly (readonly [rank: number, score: number])[],
  ) {
    for (const [dictionary, scores] of dictionaries) {
      (["exact", "prefix", "substring"] as const).forEach((match, i) => {
        this.streams.push(new PostingStream(scores[i] as number, dictionary, dictionary.scan(term, match)));
      });
    }
  }

  /** Marks the best score of each entry of [lo, hi) in `best`; returns how many ranks it marked. */
  mark(lo: number, hi: number, best: Uint8Array, masked: Uint8Array | undefined): number {
    let marks = 0;
    for (const stream of this.streams) marks += stream.mark(lo, hi, best, masked);
    for (; this.next < this.overlay.length; this.next++) {
      const [rank, score] = this.overlay[this.next] as readonly [number, number];
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
    for (let i = this.next; i < this.overlay.length; i++) best = Math.max(best, this.overlay[i]?.[1] ?? 0);
    return best;
  }
}

/** The index over a fixed set of resources (the stub creates and deletes none; it updates them). */
export class SearchIndex {
  private readonly resources: Record<string, unknown>[] = [];
  private readonly names: string[] = [];
  private readonly typeNames: ResourceType[] = [];
  /** Index in typeNames, by rank. */
  private readonly types: Uint8Array;
  private readonly accessKeys: string[] = [];
  /** Index in accessKeys, by rank. */
  private readonly accessIds: Int32Array;
  /** Ranks by index in typeNames. */
  private readonly byType: Int32Array[] = [];
  private readonly primary: SearchDictionary;
  private readonly other: SearchDictionary;
  /** Refreshed entries' search text by rank; the dictionaries still hold their old text, masked. */
  private readonly overlay = new Map<number, SearchText>();
  private masked: Uint8Array | undefined;
  private readonly ranksOf = new Map<object, number>();
  private readonly firstWindow: number;
  private readonly maxWindow: number;
  private scratch: { best: Uint8Array; sums: Int32Array; matched: Int32Array } | undefined;

  constructor(resources: Iterable<SearchResource>, tuning: SearchIndexTuning = {}) {
    const input = [...resources];
    const n = input.length;
    const order = nameOrder(input.map((r) => r.resourceName));
    // The resources are read in their own order, likely the order they lie in memory: read in rank order, each
    // would cost a cache miss per field.
    const typeOf = new Uint8Array(n);
    const accessOf = new Int32Array(n);
    const typeIds = new Map<ResourceType, number>();
    const accessIds = new Map<string, number>();
    const primary = new SearchDictionaryBuilder(n);
    const other = new SearchDictionaryBuilder(n);
    input.forEach((r, i) => {
      let type = typeIds.get(r.resourceType);
      if (type === undefined) {
        type = this.typeNames.push(r.resourceType) - 1;
        typeIds.set(r.resourceType, type);
      }
      typeOf[i] = type;
      let access = accessIds.get(r.access);
      if (access === undefined) {
        access = this.accessKeys.push(r.access) - 1;
        accessIds.set(r.access, access);
      }
      accessOf[i] = access;
      visitSearchFields(r.resourceType, r.resourceName, r.resource, (value, isPrimary) =>
        (isPrimary ? primary : other).add(value, i),
      );
    });
    this.types = new Uint8Array(n);
    this.accessIds = new Int32Array(n);
    order.forEach((i, rank) => {
      const r = input[i] as SearchResource;
      this.resources.push(r.resource);
      this.names.push(r.resourceName);
      this.types[rank] = typeOf[i] as number;
      this.accessIds[rank] = accessOf[i] as number;
    });
    const blockValues = tuning.blockValues ?? defaultBlockValues;
    this.primary = primary.build(order, blockValues);
    this.other = other.build(order, blockValues);
    const counts = new Int32Array(this.typeNames.length);
    for (const type of this.types) counts[type] = (counts[type] as number) + 1;
    for (const count of counts) this.byType.push(new Int32Array(count));
    counts.fill(0);
    this.types.forEach((type, rank) => {
      (this.byType[type] as Int32Array)[(counts[type] as number)++] = rank;
    });
    this.firstWindow = tuning.firstWindow ?? 4096;
    this.maxWindow = Math.max(this.firstWindow, tuning.maxWindow ?? 65536);
  }

  /** Number of entries. */
  get size(): number {
    return this.names.length;
  }

  /** The entry of a resource object, if indexed. */
  entryOf(resource: object): SearchEntry | undefined {
    // Looked for once per resource: only updates ask, and a map of every resource would cost more than they do.
    let rank = this.ranksOf.get(resource);
    if (rank === undefined) {
      rank = this.resources.indexOf(resource as Record<string, unknown>);
      if (rank < 0) return undefined;
      this.ranksOf.set(resource, rank);
    }
    return this.entry(rank);
  }

  /** Recomputes an entry's search text after its resource changed. */
  refresh(entry: SearchEntry): void {
    const text = searchValues(entry.resourceType, entry.resourceName, entry.resource);
    this.overlay.set(entry.rank, { primary: [...text.primary], other: [...text.other] });
    this.masked ??= new Uint8Array(this.size);
    this.masked[entry.rank] = 1;
  }

  /** The best `limit` matches, by score (highest first) and then resourceName (code point order). */
  search({ terms, type, canAccess, limit = maxResults }: SearchOptions): SearchHit[] {
    const typeId = type === undefined ? -1 : this.typeNames.indexOf(type);
    if ((type !== undefined && typeId < 0) || limit <= 0) return [];
    // canAccess is asked once per access key of a search.
    const allowed = new Int8Array(this.accessKeys.length);
    const visible = (rank: number): boolean => {
      if (typeId >= 0 && this.types[rank] !== typeId) return false;
      const access = this.accessIds[rank] as number;
      if (allowed[access] === 0) allowed[access] = canAccess(this.accessKeys[access] as string) ? 1 : -1;
      return allowed[access] === 1;
    };
    if (terms.length === 0) {
      const hits: SearchHit[] = [];
      const ranks = typeId >= 0 ? (this.byType[typeId] as Int32Array) : undefined;
      const count = ranks ? ranks.length : this.size;
      for (let i = 0; i < count && hits.length < limit; i++) {
        const rank = ranks ? (ranks[i] as number) : i;
        if (visible(rank)) hits.push({ entry: this.entry(rank), score: 0 });
      }
      return hits;
    }
    return this.scoredSearch(terms, limit, visible);
  }

  private scoredSearch(terms: readonly string[], limit: number, visible: (rank: number) => boolean): SearchHit[] {
    const weights = new Map<string, number>();
    for (const term of terms) weights.set(term, (weights.get(term) ?? 0) + 1);
    const overlay = [...this.overlay].sort(([a], [b]) => a - b);
    const dictionaries: [SearchDictionary, MatchScores][] = [
      [this.primary, primaryScores],
      [this.other, otherScores],
    ];
    const plans = [...weights].map(([term, weight]) => {
      const matches = overlay.flatMap(([rank, text]) => {
        const score = scoreText(text, term);
        return score > 0 ? [[rank, score] as const] : [];
      });
      return new TermPlan(term, weight, dictionaries, matches);
    });
    // Entries by score; each keeps its first `limit` in rank order, which is all a score can contribute.
    const buckets: number[][] = Array.from({ length: 101 }, () => []);
    const n = this.size;
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
        if (plan.mark(lo, hi, best, this.masked) === 0) possible = false;
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
          const bucket = buckets[Math.floor((sums[i] as number) / terms.length)] as number[];
          if (bucket.length < limit && visible(lo + i)) bucket.push(lo + i);
        }
      }
      lo = hi;
      width = Math.min(width * 2, this.maxWindow);
      // The results are settled once they hold `limit` entries that score at least what a later one could.
      let bound = 0;
      for (const plan of plans) {
        const later = plan.bestLater();
        if (later === 0) return this.hits(buckets, limit);
        bound += plan.weight * later;
      }
      let settled = 0;
      for (let score = 100; score >= Math.floor(bound / terms.length); score--)
        settled += (buckets[score] as number[]).length;
      if (settled >= limit) break;
    }
    return this.hits(buckets, limit);
  }

  private hits(buckets: readonly number[][], limit: number): SearchHit[] {
    const hits: SearchHit[] = [];
    for (let score = 100; score >= 0 && hits.length < limit; score--) {
      for (const rank of buckets[score] as number[]) {
        if (hits.length >= limit) break;
        hits.push({ entry: this.entry(rank), score });
      }
    }
    return hits;
  }

  private entry(rank: number): SearchEntry {
    return {
      resourceType: this.typeNames[this.types[rank] as number] as ResourceType,
      resourceName: this.names[rank] as string,
      access: this.accessKeys[this.accessIds[rank] as number] as string,
      resource: this.resources[rank] as Record<string, unknown>,
      rank,
    };
  }
}
