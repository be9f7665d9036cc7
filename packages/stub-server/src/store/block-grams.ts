/**
 * The n-gram filter of a SearchDictionary: for each trigram and bigram of its blocks' texts, the bitset of the
 * blocks that hold it, so that a scan searches only the blocks that may hold its pattern.
 */
import { bigramKey, trigramKey } from "./search-dictionary.js";

/**
 * For each trigram of the texts (Latin-1 characters, the third possibly "past Latin-1") and each bigram, the
 * bitset of the blocks that hold it. Bigram bitsets are the union of those of the trigrams they start.
 */
export function blockGrams(texts: readonly string[]): Map<number, Uint32Array> {
  const words = (texts.length + 31) >>> 5;
  const bitsets: Uint32Array[] = [];
  const keys: number[] = [];
  // Bitset index + 1 of each trigram, in two levels: a row of 257 slots per pair of first characters (only for
  // pairs that occur), then the third character.
  const pairRows = new Int32Array(1 << 16);
  let rows = new Int32Array(257 * 64);
  let rowCount = 0;
  // The bits of the current 32 blocks, by bitset: set per character in this small array, they are written to the
  // bitsets (each likely a cache miss) once per 32 blocks.
  let batch = new Int32Array(4096);
  const touched: number[] = [];
  let bit = 0;
  const mark = (a: number, b: number, third: number): void => {
    const pair = (a << 8) | b;
    let row = pairRows[pair] as number;
    if (row === 0) {
      if (257 * (rowCount + 1) > rows.length) {
        const grown = new Int32Array(rows.length * 2);
        grown.set(rows);
        rows = grown;
      }
      row = ++rowCount;
      pairRows[pair] = row;
    }
    const at = 257 * (row - 1) + third;
    let index = rows[at] as number;
    if (index === 0) {
      keys.push(trigramKey(a, b, third));
      bitsets.push(new Uint32Array(words));
      if (bitsets.length > batch.length) {
        const grown = new Int32Array(batch.length * 2);
        grown.set(batch);
        batch = grown;
      }
      index = bitsets.length;
      rows[at] = index;
    }
    const bits = batch[index - 1] as number;
    if (bits === 0) touched.push(index - 1);
    batch[index - 1] = bits | bit;
  };
  for (let block = 0; block < texts.length; block++) {
    const text = texts[block] as string;
    bit = 1 << (block & 31);
    let a = -1;
    let b = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c > 0xff) {
        if (a >= 0) mark(a, b, 256);
        a = -1;
        b = -1;
        continue;
      }
      if (a >= 0) mark(a, b, c);
      a = b;
      b = c;
    }
    if ((block & 31) === 31 || block === texts.length - 1) {
      for (const index of touched) {
        (bitsets[index] as Uint32Array)[block >>> 5] = batch[index] as number;
        batch[index] = 0;
      }
      touched.length = 0;
    }
  }
  const grams = new Map<number, Uint32Array>();
  keys.forEach((key, i) => {
    const bits = bitsets[i] as Uint32Array;
    if ((key & 0x1ff) !== 256) grams.set(key, bits);
    const pair = bigramKey(key >>> 17, (key >>> 9) & 0xff);
    const union = grams.get(pair);
    if (!union) grams.set(pair, bits.slice());
    else for (let w = 0; w < words; w++) union[w] = (union[w] as number) | (bits[w] as number);
  });
  return grams;
}
