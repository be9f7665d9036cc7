/**
 * The order of the search index's entries: resourceNames in code point order. A comparator sort of a million
 * names takes seconds, most of it waiting for memory.
 */
import { compareCodePoints } from "@compute-api/rules";

// Ranges this short are sorted by insertion.
const insertionRange = 16;
// Without the u flag a class matches code units, so a surrogate pair matches too.
const surrogate = /[\uD800-\uDFFF]/;
const beyondLatin1 = /[\u0100-\uffff]/;

/**
 * The indexes of names in code point order; equal names keep their order.
 *
 * A most-significant-digit radix sort: each pass packs the next characters of every name of a group (from the
 * position where the group's names start to differ) into two numbers, sorts the group by them, and passes the
 * runs of equal numbers on to the characters after. Each pass reads a name once, from memory it is likely not to
 * have in cache; a comparator sort reads two names per comparison, some twenty comparisons per name.
 */
export function nameOrder(names: readonly string[]): Int32Array {
  // Without surrogates code unit order is code point order. With them a comparator sort by compareCodePoints is
  // used: on lone surrogates compareCodePoints is no total order, so only that sort gives the reference's order.
  if (names.some((name) => surrogate.test(name))) {
    const order = Array.from(names, (_, i) => i);
    return Int32Array.from(order.sort((a, b) => compareCodePoints(names[a] as string, names[b] as string)));
  }
  const n = names.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // The names in the order being sorted: names[order[i]] would cost a cache miss more per name and pass.
  const strs = names.slice();
  // Two numbers per name and pass. A character is its code unit + 1, 0 past the end of the name: five Latin-1
  // ones fit in a number's 53 bits, else three.
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const latin1 = !names.some((name) => beyondLatin1.test(name));
  const width = latin1 ? 5 : 3;
  const radix = latin1 ? 0x200 : 0x20000;
  const pack = (name: string, from: number): number => {
    let key = 0;
    for (let j = from; j < from + width; j++) key = key * radix + (j < name.length ? name.charCodeAt(j) + 1 : 0);
    return key;
  };
  // Groups still to sort, as [lo, hi, depth]: the names of order[lo..hi) agree before character depth.
  const stack: number[] = [0, n, 0];
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const hi = stack.pop() as number;
    const lo = stack.pop() as number;
    for (let i = lo; i < hi; i++) {
      const name = strs[i] as string;
      high[i] = pack(name, depth);
      low[i] = pack(name, depth + width);
    }
    sortByKeys(high, low, order, strs, lo, hi);
    for (let start = lo; start < hi; ) {
      let end = start + 1;
      while (end < hi && high[end] === high[start] && low[end] === low[start]) end++;
      if (end - start > 1) {
        // A name that ended within these characters equals the others of its run: input order decides.
        if ((low[start] as number) % radix === 0) order.subarray(start, end).sort();
        else stack.push(start, end, depth + 2 * width);
      }
      start = end;
    }
  }
  return order;
}

/** Sorts [lo, hi) by (high, low) ascending, moving order and strs along (a quicksort; ties in any order). */
function sortByKeys(
  high: Float64Array,
  low: Float64Array,
  order: Int32Array,
  strs: string[],
  lo: number,
  hi: number,
): void {
  const swap = (i: number, j: number): void => {
    const h = high[i] as number;
    high[i] = high[j] as number;
    high[j] = h;
    const l = low[i] as number;
    low[i] = low[j] as number;
    low[j] = l;
    const o = order[i] as number;
    order[i] = order[j] as number;
    order[j] = o;
    const t = strs[i] as string;
    strs[i] = strs[j] as string;
    strs[j] = t;
  };
  /** Compares the keys at i with (h, l). */
  const compare = (i: number, h: number, l: number): number => {
    const x = high[i] as number;
    if (x !== h) return x < h ? -1 : 1;
    const y = low[i] as number;
    return y < l ? -1 : y > l ? 1 : 0;
  };
  const stack = [lo, hi];
  while (stack.length > 0) {
    let right = stack.pop() as number;
    let left = stack.pop() as number;
    while (right - left > insertionRange) {
      // The median of the first, middle and last keys as pivot.
      const mid = (left + right) >>> 1;
      const last = right - 1;
      const below = (i: number, j: number): boolean => compare(i, high[j] as number, low[j] as number) < 0;
      let p = mid;
      if (below(left, mid) !== below(left, last)) p = left;
      else if (below(mid, last) === below(left, mid)) p = mid;
      else p = last;
      const ph = high[p] as number;
      const pl = low[p] as number;
      // Three-way partition: [left, lt) below the pivot, [lt, gt) equal, [gt, right) above.
      let lt = left;
      let gt = right;
      for (let i = left; i < gt; ) {
        const c = compare(i, ph, pl);
        if (c < 0) swap(lt++, i++);
        else if (c > 0) swap(i, --gt);
        else i++;
      }
      // The smaller side waits on the stack, so that it never holds more than about log2(n) ranges.
      if (lt - left < right - gt) {
        stack.push(left, lt);
        left = gt;
      } else {
        stack.push(gt, right);
        right = lt;
      }
    }
    for (let i = left + 1; i < right; i++) {
      for (let j = i; j > left && compare(j - 1, high[j] as number, low[j] as number) > 0; j--) swap(j - 1, j);
    }
  }
}
