/**
 * The distinct lowercased field values of the searchable resources, each with the entries (by rank) that hold
 * it. Most field values repeat (states, data centers, project ids), so looking through the distinct values is
 * much cheaper than through every resource. A term of three or more characters is looked up through its
 * rarest trigram when that is selective; otherwise the values, packed into chunks of text, are scanned with
 * `indexOf`.
 */

/** The scores of an exact, a prefix and a substring match of a term against a value. */
export type MatchScores = readonly [exact: number, prefix: number, substring: number];

interface Chunk {
  /** Index of the chunk's first value. */
  first: number;
  text: string;
  /** Where each value starts in text (after its separator). */
  starts: Int32Array;
}

// Values are joined with a control character, which a query term never holds (the spec forbids them), so a
// hit never spans two values.
const separator = "\u0000";
const chunkValues = 4096;
// A trigram whose values are fewer than this share of all values is selective enough to look through.
const selectiveShare = 1 / 8;

/** The trigram at i of a lowercased string as a number, or -1 when a character is outside Latin-1. */
function trigramAt(text: string, i: number): number {
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  const c = text.charCodeAt(i + 2);
  return (a | b | c) > 0xff ? -1 : (a << 16) | (b << 8) | c;
}

/** Distinct values with the ranks of the entries that hold them. */
export class SearchDictionary {
  private readonly values: string[] = [];
  private readonly postings: number[][] = [];
  private readonly ids = new Map<string, number>();
  private readonly chunks: Chunk[] = [];
  /** Value ids by trigram, each list ascending. */
  private readonly trigrams = new Map<number, number[]>();
  private builtValues = 0;

  /** Records that entry `rank` holds value (call once per distinct value of an entry). */
  add(value: string, rank: number): void {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
      this.postings.push([]);
    }
    (this.postings[id] as number[]).push(rank);
  }

  /** Records that entry `rank` no longer holds value. */
  remove(value: string, rank: number): void {
    const id = this.ids.get(value);
    const list = id === undefined ? undefined : this.postings[id];
    const at = list?.indexOf(rank) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
  }

  /** Packs the values added since the last call into chunks and the trigram lists; call before searching. */
  pack(): void {
    if (this.builtValues === this.values.length) return;
    for (let id = this.builtValues; id < this.values.length; id++) {
      const value = this.values[id] as string;
      for (let i = 0; i + 3 <= value.length; i++) {
        const gram = trigramAt(value, i);
        if (gram < 0) continue;
        let ids = this.trigrams.get(gram);
        if (!ids) {
          ids = [];
          this.trigrams.set(gram, ids);
        }
        if (ids[ids.length - 1] !== id) ids.push(id);
      }
    }
    let first = this.builtValues;
    // A last chunk with room is rebuilt with the new values.
    const last = this.chunks.at(-1);
    if (last && last.starts.length < chunkValues) {
      this.chunks.pop();
      first = last.first;
    }
    for (; first < this.values.length; first += chunkValues) {
      const slice = this.values.slice(first, first + chunkValues);
      const starts = new Int32Array(slice.length);
      let at = 0;
      slice.forEach((value, i) => {
        starts[i] = at + 1;
        at += value.length + 1;
      });
      this.chunks.push({ first, text: separator + slice.join(separator), starts });
    }
    this.builtValues = this.values.length;
  }

  /**
   * Scores term against every value: for each entry that holds a matching value, `best[rank]` becomes the
   * highest score of how a value matched (exact, prefix or substring). Ranks whose `best` was 0 are appended to
   * `touched` from `count` on; returns the new count. (Plain loops over typed arrays: this runs per search.)
   */
  score(
    term: string,
    [exactScore, prefixScore, substringScore]: MatchScores,
    best: Uint8Array,
    touched: Int32Array,
    count: number,
  ): number {
    const exact = this.ids.get(term);
    if (exact !== undefined) count = this.mark(exact, exactScore, best, touched, count);
    const candidates = this.selectiveTrigram(term);
    if (candidates) {
      for (const id of candidates) {
        const at = id === exact ? -1 : (this.values[id] as string).indexOf(term);
        if (at >= 0) count = this.mark(id, at === 0 ? prefixScore : substringScore, best, touched, count);
      }
      return count;
    }
    for (const { first, text, starts } of this.chunks) {
      const last = starts.length - 1;
      let lo = 0;
      let at = text.indexOf(term, 1);
      while (at !== -1) {
        // Hits come in order, so the value that holds this one is at or after the previous one: gallop to it.
        let step = 1;
        while (lo + step <= last && (starts[lo + step] as number) <= at) step *= 2;
        let hi = Math.min(lo + step, last);
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if ((starts[mid] as number) <= at) lo = mid;
          else hi = mid - 1;
        }
        // The exact value was scored above; a hit at the start of a value is its leftmost, so it is a prefix.
        if (first + lo !== exact)
          count = this.mark(first + lo, at === starts[lo] ? prefixScore : substringScore, best, touched, count);
        if (lo === last) break;
        lo++;
        at = text.indexOf(term, starts[lo]);
      }
    }
    return count;
  }

  /** Raises `best` of the entries that hold value `id` to score, appending newly touched ranks; returns the count. */
  private mark(id: number, score: number, best: Uint8Array, touched: Int32Array, count: number): number {
    const ranks = this.postings[id] as number[];
    for (let j = 0; j < ranks.length; j++) {
      const rank = ranks[j] as number;
      const was = best[rank] as number;
      if (was === 0) touched[count++] = rank;
      if (score > was) best[rank] = score;
    }
    return count;
  }

  /** The value ids of the term's rarest trigram when they are few, else undefined (the term must be scanned for). */
  private selectiveTrigram(term: string): readonly number[] | undefined {
    let rarest: number[] | undefined;
    for (let i = 0; i + 3 <= term.length; i++) {
      const gram = trigramAt(term, i);
      if (gram < 0) return undefined;
      const ids = this.trigrams.get(gram) ?? [];
      if (!rarest || ids.length < rarest.length) rarest = ids;
    }
    return rarest && rarest.length < this.values.length * selectiveShare ? rarest : undefined;
  }
}
