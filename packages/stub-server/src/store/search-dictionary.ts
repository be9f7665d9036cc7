/**
 * The distinct lowercased field values of the searchable resources, each with the entries (by rank) that hold
 * it. Most field values repeat (states, data centers, project ids), so looking through the distinct values is
 * much cheaper than through every resource.
 *
 * Everything is packed once the values are known: the ranks of all values in one Int32Array (each value's run
 * ascending), the values joined into a text per block of values, and for each bigram and trigram of those texts
 * a bitset of the blocks that hold it. A value's id is its order of first appearance, and values are added in
 * rank order, so the lowest rank of a value never decreases with its id: a scan that yields values in id order
 * yields them roughly in rank order, which lets a search stop early.
 */

/** The scores of an exact, a prefix and a substring match of a term against a value. */
export type MatchScores = readonly [exact: number, prefix: number, substring: number];

// Values are joined with a control character, which a query term never holds (the spec forbids them), so that a
// text search finds the values starting with a term by looking for the separator and the term.
const separator = "\u0000";
/** Values per block of text; a block is the unit the n-gram filter selects. */
export const defaultBlockValues = 64;

// N-gram keys: a trigram of Latin-1 characters is its three codes, a bigram is offset past every trigram.
const bigramBase = 1 << 24;

/** A hash of a string: FNV-1a over its code units. */
function hashOf(value: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  return hash;
}

/** Where a hash starts probing in a table of 2^bits slots. */
const slotOf = (hash: number, bits: number): number => Math.imul(hash, 0x9e3779b1) >>> (32 - bits);

/** An empty table of 2^bits slots, each a hash and an id (-1: free). */
const table = (bits: number): Int32Array => new Int32Array(2 << bits).fill(-1);

/**
 * Collects the values of entries, in any order of the entries; `build` numbers the values in rank order and
 * packs them into a dictionary.
 *
 * What it collects stays in the collected heap until `build` packs it into typed arrays of their final sizes:
 * V8 starts a full collection each time some 64 MB more of array buffers are allocated, and a full collection
 * of the heap of a million resources takes a second or two.
 */
export class SearchDictionaryBuilder {
  private readonly values: string[] = [];
  /**
   * Pairs of a hash and its value's id (-1 when free), by hash, open addressing: with millions of values a Map is
   * several times slower.
   */
  private slots: Int32Array;
  private bits: number;
  /** Per entry (by its index among the entries added), where its value ids start in pairs. */
  private readonly entryStarts: number[] = [];
  private readonly pairs: number[] = [];

  /** Expects about `entries` entries (the hash table's first size). */
  constructor(entries = 0) {
    this.bits = Math.max(10, 33 - Math.clz32(entries));
    this.slots = table(this.bits);
  }

  /** Records that an entry holds value; entries are numbered from 0 and must not decrease between calls. */
  add(value: string, entry: number): void {
    const { slots, values, pairs, entryStarts } = this;
    const hash = hashOf(value);
    const mask = (1 << this.bits) - 1;
    // The hash beside the id spares reading the values of other hashes, each likely a cache miss.
    let at = slotOf(hash, this.bits);
    let id = slots[2 * at + 1] as number;
    while (id !== -1 && (slots[2 * at] !== hash || values[id] !== value)) {
      at = (at + 1) & mask;
      id = slots[2 * at + 1] as number;
    }
    if (id === -1) {
      id = values.length;
      slots[2 * at] = hash;
      slots[2 * at + 1] = id;
      values.push(value);
      if (4 * values.length > slots.length) this.grow();
    }
    while (entryStarts.length <= entry) entryStarts.push(pairs.length);
    // An entry holds few values: a repeat is found among them.
    for (let i = entryStarts[entry] as number; i < pairs.length; i++) if (pairs[i] === id) return;
    pairs.push(id);
  }

  private grow(): void {
    const before = this.slots;
    this.bits++;
    this.slots = table(this.bits);
    const mask = (1 << this.bits) - 1;
    for (let from = 1; from < before.length; from += 2) {
      const id = before[from] as number;
      if (id === -1) continue;
      const hash = before[from - 1] as number;
      let at = slotOf(hash, this.bits);
      while (this.slots[2 * at + 1] !== -1) at = (at + 1) & mask;
      this.slots[2 * at] = hash;
      this.slots[2 * at + 1] = id;
    }
  }

  /**
   * Packs what was added, the entry `order[rank]` at each rank; the builder must not be used afterwards. Values
   * are numbered in order of first appearance by rank, so that a value's lowest rank never decreases with its id.
   */
  build(order: Int32Array, blockValues = defaultBlockValues): SearchDictionary {
    const { pairs, entryStarts } = this;
    const size = this.values.length;
    while (entryStarts.length <= order.length) entryStarts.push(pairs.length);
    // The new id of each value, and per new id its count, summed into where its ranks start.
    const ids = new Int32Array(size).fill(-1);
    const offsets = new Int32Array(size + 1);
    let next = 0;
    for (const entry of order) {
      for (let i = entryStarts[entry] as number; i < (entryStarts[entry + 1] as number); i++) {
        const old = pairs[i] as number;
        if (ids[old] === -1) ids[old] = next++;
        const id = ids[old] as number;
        offsets[id + 1] = (offsets[id + 1] as number) + 1;
      }
    }
    for (let id = 0; id < size; id++) offsets[id + 1] = (offsets[id + 1] as number) + (offsets[id] as number);
    // Each value's start is advanced past its ranks while they are filled in, then moved back.
    const postings = new Int32Array(pairs.length);
    order.forEach((entry, rank) => {
      for (let i = entryStarts[entry] as number; i < (entryStarts[entry + 1] as number); i++) {
        const id = ids[pairs[i] as number] as number;
        postings[offsets[id] as number] = rank;
        offsets[id] = (offsets[id] as number) + 1;
      }
    });
    offsets.copyWithin(1, 0, size);
    offsets[0] = 0;
    const values = new Array<string>(size);
    this.values.forEach((value, old) => {
      values[ids[old] as number] = value;
    });
    for (let at = 1; at < this.slots.length; at += 2) {
      const old = this.slots[at] as number;
      if (old !== -1) this.slots[at] = ids[old] as number;
    }

    const texts: string[] = [];
    const starts = new Int32Array(size);
    for (let first = 0; first < size; first += blockValues) {
      const slice = values.slice(first, first + blockValues);
      let at = 0;
      for (let i = 0; i < slice.length; i++) {
        starts[first + i] = at + 1;
        at += (slice[i] as string).length + 1;
      }
      texts.push(separator + slice.join(separator));
    }
    return new SearchDictionary(
      { slots: this.slots, bits: this.bits },
      offsets,
      postings,
      texts,
      starts,
      blockValues,
      blockGrams(texts),
    );
  }
}

/** For each bigram and trigram of the texts (Latin-1 characters only), the bitset of the blocks that hold it. */
function blockGrams(texts: readonly string[]): Map<number, Uint32Array> {
  const words = (texts.length + 31) >>> 5;
  const bitsets: Uint32Array[] = [];
  const keys: number[] = [];
  // Bitset index + 1 of each key, in two levels: by the key's first two characters (a bigram's own slot, and a
  // row of 256 trigram slots), then by its third. Only the rows of pairs that occur are made.
  const pairSlots = new Int32Array(1 << 16);
  const pairRows = new Int32Array(1 << 16);
  let rows = new Int32Array(256 * 64);
  let rowCount = 0;
  // The bits of the current 32 blocks, by bitset: set per character in this small array, they are written to the
  // bitsets (each likely a cache miss) once per 32 blocks.
  let batch = new Int32Array(4096);
  const touched: number[] = [];
  let bit = 0;
  const set = (index: number): void => {
    const bits = batch[index] as number;
    if (bits === 0) touched.push(index);
    batch[index] = bits | bit;
  };
  const flush = (word: number): void => {
    for (const index of touched) {
      (bitsets[index] as Uint32Array)[word] = batch[index] as number;
      batch[index] = 0;
    }
    touched.length = 0;
  };
  const add = (key: number): number => {
    keys.push(key);
    bitsets.push(new Uint32Array(words));
    if (bitsets.length > batch.length) {
      const grown = new Int32Array(batch.length * 2);
      grown.set(batch);
      batch = grown;
    }
    return bitsets.length;
  };
  for (let block = 0; block < texts.length; block++) {
    const text = texts[block] as string;
    bit = 1 << (block & 31);
    let a = -1;
    let b = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c > 0xff) {
        a = -1;
        b = -1;
        continue;
      }
      if (b >= 0) {
        const pair = (b << 8) | c;
        let slot = pairSlots[pair] as number;
        if (slot === 0) {
          slot = add(bigramBase + pair);
          pairSlots[pair] = slot;
        }
        set(slot - 1);
        if (a >= 0) {
          const first = (a << 8) | b;
          let row = pairRows[first] as number;
          if (row === 0) {
            if (256 * (rowCount + 1) > rows.length) {
              const grown = new Int32Array(rows.length * 2);
              grown.set(rows);
              rows = grown;
            }
            row = ++rowCount;
            pairRows[first] = row;
          }
          const at = 256 * (row - 1) + c;
          let index = rows[at] as number;
          if (index === 0) {
            index = add((first << 8) | c);
            rows[at] = index;
          }
          set(index - 1);
        }
      }
      a = b;
      b = c;
    }
    if ((block & 31) === 31 || block === texts.length - 1) flush(block >>> 5);
  }
  return new Map(keys.map((key, i) => [key, bitsets[i] as Uint32Array]));
}

/** The n-gram keys of a pattern: its trigrams, or its bigram when it has two characters, Latin-1 ones only. */
function patternKeys(pattern: string): number[] {
  const keys: number[] = [];
  if (pattern.length === 2) {
    const a = pattern.charCodeAt(0);
    const b = pattern.charCodeAt(1);
    if ((a | b) <= 0xff) keys.push(bigramBase + ((a << 8) | b));
  }
  for (let i = 0; i + 3 <= pattern.length; i++) {
    const a = pattern.charCodeAt(i);
    const b = pattern.charCodeAt(i + 1);
    const c = pattern.charCodeAt(i + 2);
    if ((a | b | c) <= 0xff) keys.push((a << 16) | (b << 8) | c);
  }
  return keys;
}

/** Distinct values with the ranks of the entries that hold them; built by SearchDictionaryBuilder. */
export class SearchDictionary {
  constructor(
    /** The builder's table of value ids by hash. */
    private readonly table: { slots: Int32Array; bits: number },
    /** Where each value's ranks start in `postings`; one more than there are values. */
    readonly offsets: Int32Array,
    /** The ranks of every value, ascending within a value. */
    readonly postings: Int32Array,
    /** Per block, its values each preceded by the separator. */
    private readonly texts: readonly string[],
    /** Where each value starts in its block's text. */
    private readonly starts: Int32Array,
    private readonly blockValues: number,
    private readonly grams: ReadonlyMap<number, Uint32Array>,
  ) {}

  /** Number of distinct values. */
  get size(): number {
    return this.starts.length;
  }

  /** The id of the value equal to term, or -1. */
  exact(term: string): number {
    const { slots, bits } = this.table;
    const hash = hashOf(term);
    const mask = (1 << bits) - 1;
    for (let at = slotOf(hash, bits); slots[2 * at + 1] !== -1; at = (at + 1) & mask) {
      const id = slots[2 * at + 1] as number;
      if (slots[2 * at] !== hash) continue;
      const text = this.texts[Math.floor(id / this.blockValues)] as string;
      const start = this.starts[id] as number;
      const last = (id + 1) % this.blockValues === 0 || id + 1 === this.size;
      const end = last ? text.length : (this.starts[id + 1] as number) - 1;
      if (end - start === term.length && text.startsWith(term, start)) return id;
    }
    return -1;
  }

  /** The values that start with term (`prefix`, the value itself excluded) or hold it elsewhere, in id order. */
  scan(term: string, prefix: boolean): ValueScan {
    return new ValueScan(this, term, prefix);
  }

  /** The blocks whose text may hold pattern, as a bitset; undefined when the filter cannot tell (every block). */
  candidateBlocks(pattern: string): Uint32Array | undefined {
    let blocks: Uint32Array | undefined;
    for (const key of patternKeys(pattern)) {
      const bits = this.grams.get(key);
      if (!bits) return new Uint32Array((this.texts.length + 31) >>> 5);
      if (!blocks) blocks = bits.slice();
      else for (let w = 0; w < blocks.length; w++) blocks[w] = (blocks[w] as number) & (bits[w] as number);
    }
    return blocks;
  }

  /** The text of a block, the id of its first value and its number of values. */
  block(index: number): { text: string; first: number; count: number } | undefined {
    const text = this.texts[index];
    if (text === undefined) return undefined;
    const first = index * this.blockValues;
    return { text, first, count: Math.min(this.blockValues, this.size - first) };
  }

  /** Where value id starts in its block's text. */
  startOf(id: number): number {
    return this.starts[id] as number;
  }

  /** Number of blocks. */
  get blockCount(): number {
    return this.texts.length;
  }
}

/**
 * A lazy scan for the values that start with a term (the term itself excluded) or that hold it but do not start
 * with it, in id order: the blocks the n-gram filter selects are searched with `indexOf`, one value at a time.
 */
export class ValueScan {
  private readonly pattern: string;
  private readonly blocks: Uint32Array | undefined;
  private blockIndex = -1;
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
    private readonly prefix: boolean,
  ) {
    this.pattern = prefix ? separator + term : term;
    this.blocks = dictionary.candidateBlocks(this.pattern);
  }

  /** The next value's id, or -1 when there is none. */
  next(): number {
    const { dictionary, term, prefix } = this;
    for (;;) {
      if (this.local > this.last && !this.nextBlock()) return -1;
      const text = this.text;
      const at = text.indexOf(this.pattern, this.from);
      if (at === -1) {
        this.local = this.last + 1;
        continue;
      }
      const pos = prefix ? at + 1 : at;
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
      const end = lo < this.last ? dictionary.startOf(id + 1) - 1 : text.length;
      this.local = lo;
      // A hit that runs into the next value, or (for a prefix) starts past the value's start, is no match of it.
      if (pos + term.length > end || (prefix && pos !== start)) {
        this.from = at + 1;
        continue;
      }
      // The first hit within a value is its leftmost: at its start the value is a prefix match, else a substring.
      this.local = lo + 1;
      this.from = end;
      if (prefix ? end - start > term.length : pos > start) return id;
    }
  }

  private nextBlock(): boolean {
    const { blocks } = this;
    let index = this.blockIndex + 1;
    if (blocks) {
      // The next set bit of the bitset.
      let w = index >>> 5;
      if (w >= blocks.length) return false;
      let bits = (blocks[w] as number) & (-1 << (index & 31));
      while (bits === 0) {
        if (++w >= blocks.length) return false;
        bits = blocks[w] as number;
      }
      index = (w << 5) + 31 - Math.clz32(bits & -bits);
    }
    const block = this.dictionary.block(index);
    if (!block) return false;
    this.blockIndex = index;
    this.text = block.text;
    this.first = block.first;
    this.last = block.count - 1;
    this.local = 0;
    this.from = 0;
    return true;
  }
}
