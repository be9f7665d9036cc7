/**
 * The distinct lowercased field values of the searchable resources, each with the entries (by rank) that hold
 * it; built by SearchDictionaryBuilder. Most field values repeat (states, data centers, project ids), so looking
 * through the distinct values is much cheaper than through every resource.
 *
 * The ranks of all values are in one Int32Array (ascending within a value); the values are joined into a text
 * per block of values; each trigram of those texts (and each bigram) has a bitset of the blocks that hold it. A
 * value's id is its order of first appearance by rank, so the lowest rank of a value never decreases with its
 * id: a scan that yields values in id order yields them roughly in rank order, which lets a search stop early.
 */

/** The scores of an exact, a prefix and a substring match of a term against a value. */
export type MatchScores = readonly [exact: number, prefix: number, substring: number];

/**
 * What precedes and follows every value in its block's text: a control character, which a query term never holds
 * (the spec forbids them), so that a search for it and a term finds the values that start with the term.
 */
export const separator = "\u0000";
/** Values per block of text; a block is the unit the n-gram filter selects. */
export const defaultBlockValues = 64;

/**
 * The key of a trigram of Latin-1 characters; `third` is 256 for "a character past Latin-1", so that every
 * bigram followed by a character starts a trigram.
 */
export const trigramKey = (a: number, b: number, third: number): number => (a << 17) | (b << 9) | third;
/** The key of a bigram of Latin-1 characters, past every trigram key. */
export const bigramKey = (a: number, b: number): number => (1 << 25) + ((a << 8) | b);

/** The n-gram keys of a pattern: its trigrams, or its bigram when it has two characters; Latin-1 ones only. */
function patternKeys(pattern: string): number[] {
  const keys: number[] = [];
  if (pattern.length === 2) {
    const a = pattern.charCodeAt(0);
    const b = pattern.charCodeAt(1);
    // A bigram ending in the separator is the end of a value, which the bigram bitsets do not cover.
    if ((a | b) <= 0xff && b !== 0) keys.push(bigramKey(a, b));
  }
  for (let i = 0; i + 3 <= pattern.length; i++) {
    const a = pattern.charCodeAt(i);
    const b = pattern.charCodeAt(i + 1);
    const c = pattern.charCodeAt(i + 2);
    if ((a | b | c) <= 0xff) keys.push(trigramKey(a, b, c));
  }
  return keys;
}

/** What a SearchDictionary is made of. */
export interface DictionaryParts {
  /** Where the ranks of each value start in postings; one more than there are values. */
  offsets: Int32Array;
  /** The ranks of every value, ascending within a value. */
  postings: Int32Array;
  /** Per block, its values each preceded and the last followed by the separator. */
  texts: string[];
  /** Where each value starts in its block's text. */
  starts: Int32Array;
  blockValues: number;
  /** Per n-gram key, the bitset of the blocks whose text holds the n-gram. */
  grams: Map<number, Uint32Array>;
}

/** Distinct values with the ranks of the entries that hold them. */
export class SearchDictionary {
  /** Where the ranks of each value start in postings; one more than there are values. */
  readonly offsets: Int32Array;
  /** The ranks of every value, ascending within a value. */
  readonly postings: Int32Array;
  private readonly parts: DictionaryParts;

  constructor(parts: DictionaryParts) {
    this.parts = parts;
    this.offsets = parts.offsets;
    this.postings = parts.postings;
  }

  /** Number of distinct values. */
  get size(): number {
    return this.parts.starts.length;
  }

  /** Number of blocks. */
  get blockCount(): number {
    return this.parts.texts.length;
  }

  /**
   * The values equal to term (`exact`), those that start with it (`prefix`) and those that hold it but do not
   * start with it (`substring`), each in id order.
   */
  scan(term: string, match: Match): ValueScan {
    return new ValueScan(this, term, match);
  }

  /** The blocks whose text may hold pattern, as a bitset; undefined when the filter cannot tell (every block). */
  candidateBlocks(pattern: string): Uint32Array | undefined {
    let blocks: Uint32Array | undefined;
    for (const key of patternKeys(pattern)) {
      const bits = this.parts.grams.get(key);
      if (!bits) return new Uint32Array((this.blockCount + 31) >>> 5);
      if (!blocks) blocks = bits.slice();
      else for (let w = 0; w < blocks.length; w++) blocks[w] = (blocks[w] as number) & (bits[w] as number);
    }
    return blocks;
  }

  /** The text of a block. */
  text(block: number): string {
    return this.parts.texts[block] as string;
  }

  /** The id of a block's first value, and its number of values. */
  blockValues(block: number): { first: number; count: number } {
    const first = block * this.parts.blockValues;
    return { first, count: Math.min(this.parts.blockValues, this.size - first) };
  }

  /** Where value id starts in its block's text. */
  startOf(id: number): number {
    return this.parts.starts[id] as number;
  }
}

/** How a value matches a term: equal to it, starting with it (not equal), or holding it elsewhere. */
export type Match = "exact" | "prefix" | "substring";

/**
 * A lazy scan for the values that match a term one way, in id order: the blocks the n-gram filter selects are
 * searched with `indexOf`, one value at a time. An exact or prefix match is looked for with the separator before
 * it (and for an exact one, after it), so that the filter's n-grams include the value's start (and end).
 */
export class ValueScan {
  private readonly pattern: string;
  private readonly blocks: Uint32Array | undefined;
  private block = -1;
  private text = "";
  private first = 0;
  private last = -1;
  /** Local index of the value where the search is. */
  private local = 0;
  /** Where the next search starts in text. */
  private from = 0;

  constructor(
    private readonly dictionary: SearchDictionary,
    private readonly term: string,
    private readonly match: Match,
  ) {
    this.pattern = match === "substring" ? term : match === "prefix" ? separator + term : separator + term + separator;
    this.blocks = dictionary.candidateBlocks(this.pattern);
  }

  /** The next value's id, or -1 when there is none. */
  next(): number {
    const { dictionary, term, match } = this;
    const atStart = match !== "substring";
    for (;;) {
      if (this.local > this.last && !this.nextBlock()) return -1;
      const at = this.text.indexOf(this.pattern, this.from);
      if (at === -1) {
        this.local = this.last + 1;
        continue;
      }
      const pos = atStart ? at + 1 : at;
      // Hits come in order, so the value that holds this one is at or after the current one: gallop to it.
      let lo = this.local;
      let step = 1;
      while (lo + step <= this.last && dictionary.startOf(this.first + lo + step) <= pos) step *= 2;
      let hi = Math.min(lo + step, this.last);
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (dictionary.startOf(this.first + mid) <= pos) lo = mid;
        else hi = mid - 1;
      }
      const id = this.first + lo;
      const start = dictionary.startOf(id);
      const end = lo < this.last ? dictionary.startOf(id + 1) - 1 : this.text.length - 1;
      this.local = lo;
      // A hit that runs into the next value, or (for a prefix) starts past the value's start, is no match of it.
      if (pos + term.length > end || (atStart && pos !== start)) {
        this.from = at + 1;
        continue;
      }
      // The first hit within a value is its leftmost: at its start the value is a prefix match, else a substring.
      this.local = lo + 1;
      this.from = end;
      const exact = pos === start && end - start === term.length;
      if (match === "exact" ? exact : match === "prefix" ? !exact : pos > start) return id;
    }
  }

  private nextBlock(): boolean {
    const { blocks } = this;
    let block = this.block + 1;
    if (blocks) {
      // The next set bit of the bitset.
      let w = block >>> 5;
      if (w >= blocks.length) return false;
      let bits = (blocks[w] as number) & (-1 << (block & 31));
      while (bits === 0) {
        if (++w >= blocks.length) return false;
        bits = blocks[w] as number;
      }
      block = (w << 5) + 31 - Math.clz32(bits & -bits);
    }
    if (block >= this.dictionary.blockCount) return false;
    const { first, count } = this.dictionary.blockValues(block);
    this.block = block;
    this.text = this.dictionary.text(block);
    this.first = first;
    this.last = count - 1;
    this.local = 0;
    this.from = 0;
    return true;
  }
}
