/**
 * Builds a SearchDictionary: collects the values of the entries, in the order the entries come (likely the order
 * they lie in memory), then numbers the values by rank and packs them.
 *
 * What it collects stays in the collected heap until `build` packs it into typed arrays of their final sizes:
 * V8 starts a full collection each time some 64 MB more of array buffers are allocated, and a full collection of
 * the heap of a million resources takes a second or two.
 */
import { blockGrams } from "./block-grams.js";
import { defaultBlockValues, SearchDictionary, separator } from "./search-dictionary.js";
import { runSteps, type Steps } from "./steps.js";

/** A hash of a string: FNV-1a over its code units. */
function hashOf(value: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  return hash;
}

/** Where a hash starts probing in a table of 2^bits slots. */
const slotOf = (hash: number, bits: number): number => Math.imul(hash, 0x9e3779b1) >>> (32 - bits);

/** An empty table of 2^bits slots, each a hash and a value's place (-1: free). */
const table = (bits: number): Int32Array => new Int32Array(2 << bits).fill(-1);

/** Collects values of entries; `build` packs them into a dictionary. */
export class SearchDictionaryBuilder {
  /** Distinct lowercased values, in order of first appearance here (a value's place). */
  private values: string[] = [];
  /** Per value, how many entries hold it. */
  private counts: number[] = [];
  /**
   * Pairs of a hash and its value's place (-1 when free), by hash, open addressing: with millions of values a
   * Map is several times slower, and the hash beside the place spares reading other values (cache misses).
   */
  private slots: Int32Array;
  private bits: number;
  /** Per entry, where its values' places start in pairs. */
  private entryStarts: number[] = [];
  private pairs: number[] = [];

  /** Expects about `entries` entries (the hash table's first size). */
  constructor(entries = 0) {
    this.bits = Math.max(10, 33 - Math.clz32(entries));
    this.slots = table(this.bits);
  }

  /**
   * Records that an entry holds a value, lowercased here; entries are numbered from 0 and must not decrease
   * between calls. A value an entry already holds is ignored.
   */
  add(raw: string, entry: number): void {
    // ASCII values, nearly all, are hashed as lowercased while they are read, and lowercased only when new.
    let hash = 0x811c9dc5 | 0;
    let upper = false;
    let ascii = true;
    for (let i = 0; i < raw.length; i++) {
      let c = raw.charCodeAt(i);
      if (c > 0x7f) {
        ascii = false;
        break;
      }
      if (c >= 0x41 && c <= 0x5a) {
        c += 0x20;
        upper = true;
      }
      hash = Math.imul(hash ^ c, 0x01000193);
    }
    const value = ascii ? raw : raw.toLowerCase();
    if (!ascii) {
      hash = hashOf(value);
      upper = false;
    }
    const { slots, values, pairs, entryStarts } = this;
    const mask = (1 << this.bits) - 1;
    let at = slotOf(hash, this.bits);
    let place = slots[2 * at + 1] as number;
    while (
      place !== -1 &&
      (slots[2 * at] !== hash || !(upper ? equalsLowered(values[place] as string, value) : values[place] === value))
    ) {
      at = (at + 1) & mask;
      place = slots[2 * at + 1] as number;
    }
    if (place === -1) {
      place = values.length;
      slots[2 * at] = hash;
      slots[2 * at + 1] = place;
      values.push(upper ? value.toLowerCase() : value);
      this.counts.push(0);
      if (4 * values.length > slots.length) this.grow();
    }
    while (entryStarts.length <= entry) entryStarts.push(pairs.length);
    // An entry holds few values: a repeat is found among them.
    for (let i = entryStarts[entry] as number; i < pairs.length; i++) if (pairs[i] === place) return;
    pairs.push(place);
    (this.counts[place] as number)++;
  }

  private grow(): void {
    const before = this.slots;
    this.bits++;
    this.slots = table(this.bits);
    const mask = (1 << this.bits) - 1;
    for (let from = 1; from < before.length; from += 2) {
      const place = before[from] as number;
      if (place === -1) continue;
      const hash = before[from - 1] as number;
      let at = slotOf(hash, this.bits);
      while (this.slots[2 * at + 1] !== -1) at = (at + 1) & mask;
      this.slots[2 * at] = hash;
      this.slots[2 * at + 1] = place;
    }
  }

  /**
   * Packs what was added, with entry `order[rank]` at each rank; the builder must not be used afterwards. Values
   * get their ids in order of first appearance by rank, so that a value's lowest rank never decreases with its id.
   */
  build(order: Int32Array, blockValues = defaultBlockValues): SearchDictionary {
    return runSteps(this.building(order, blockValues));
  }

  /** `build` in steps: it yields between packing, joining the values and their n-grams. */
  *building(order: Int32Array, blockValues = defaultBlockValues): Steps<SearchDictionary> {
    const { offsets, postings, places } = this.pack(order);
    // What was collected, but for the values, is needed no more: dropped now, it is not carried through the
    // collections that building the texts and n-grams of a large index starts.
    this.counts = [];
    this.pairs = [];
    this.entryStarts = [];
    this.slots = table(0);
    yield;
    const { texts, starts } = this.joinValues(places, blockValues);
    this.values = [];
    yield;
    return new SearchDictionary({ offsets, postings, texts, starts, blockValues, grams: blockGrams(texts) });
  }

  /** The ranks of each value by id (in offsets and postings), and each id's value by its place in values. */
  private pack(order: Int32Array): { offsets: Int32Array; postings: Int32Array; places: number[] } {
    const { values, counts, pairs, entryStarts } = this;
    const size = values.length;
    while (entryStarts.length <= order.length) entryStarts.push(pairs.length);
    // One pass in rank order numbers each value at its first rank and gives it then its run of ranks, after the
    // runs of the values numbered before: runs lie in id order, the order a search reads them in.
    const offsets = new Int32Array(size + 1);
    const postings = new Int32Array(pairs.length);
    // Per value (in the order it came in here), where its next rank goes, -1 until it is numbered.
    const cursor = new Array<number>(size).fill(-1);
    const places: number[] = [];
    order.forEach((entry, rank) => {
      for (let i = entryStarts[entry] as number; i < (entryStarts[entry + 1] as number); i++) {
        const place = pairs[i] as number;
        if (cursor[place] === -1) {
          const id = places.push(place) - 1;
          cursor[place] = offsets[id] as number;
          offsets[id + 1] = (offsets[id] as number) + (counts[place] as number);
        }
        postings[(cursor[place] as number)++] = rank;
      }
    });
    return { offsets, postings, places };
  }

  /** The values joined into a text per block of `blockValues`, in id order, and where each value starts. */
  private joinValues(places: readonly number[], blockValues: number): { texts: string[]; starts: Int32Array } {
    const { values } = this;
    const size = values.length;
    const texts: string[] = [];
    const starts = new Int32Array(size);
    for (let first = 0; first < size; first += blockValues) {
      // Joined from an array that begins and ends with an empty string, the text is flat from the start: a
      // concatenation would be made flat by the first search, a copy the size of the text.
      const parts = [""];
      let at = 1;
      for (let id = first; id < Math.min(size, first + blockValues); id++) {
        const value = values[places[id] as number] as string;
        parts.push(value);
        starts[id] = at;
        at += value.length + 1;
      }
      parts.push("");
      texts.push(parts.join(separator));
    }
    return { texts, starts };
  }
}

/** Whether stored equals raw lowercased, raw being ASCII. */
function equalsLowered(stored: string, raw: string): boolean {
  if (stored.length !== raw.length) return false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (stored.charCodeAt(i) !== (c >= 0x41 && c <= 0x5a ? c + 0x20 : c)) return false;
  }
  return true;
}
