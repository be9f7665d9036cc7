/**
 * The order of the search index's entries: resourceNames in code point order. A comparator sort of a million
 * names takes seconds, most of it waiting for memory.
 */
import { compareCodePoints } from "@compute-api/contract";

// Ranges this short are sorted by insertion.
const insertionRange = 16;
// Without the u flag a class matches code units, so a surrogate pair matches too.
const surrogate = /[\uD800-\uDFFF]/;
const beyondLatin1 = /[\u0100-\uffff]/;

/**
 * The indexes of names in code point order; equal names keep their order.
 *
 * A most-significant-digit radix sort: each pass packs a few characters of every name of a group (from the
 * position where the group's names start to differ) into one number, sorts the group by it, and passes the runs
 * of equal numbers on to the next characters. Each pass reads a name once, from memory it is likely not to have
 * in cache; a comparator sort reads two names per comparison, some twenty comparisons per name.
 */
export function nameOrder(names: readonly string[]): Int32Array {
  // Without surrogates code unit order is code point order. With them the comparator sort of before is kept: on
  // lone surrogates compareCodePoints is no total order, so only the same sort gives the same order.
  if (names.some((name) => surrogate.test(name))) {
    const order = Array.from(names, (_, i) => i);
    return Int32Array.from(order.sort((a, b) => compareCodePoints(names[a] as string, names[b] as string)));
  }
  const n = names.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const keys = new Float64Array(n);
  // A character is its code unit + 1, 0 past the end of the name: five Latin-1 ones fit in a number's 53 bits,
  // else three.
  const latin1 = !names.some((name) => beyondLatin1.test(name));
  const width = latin1 ? 5 : 3;
  const radix = latin1 ? 0x200 : 0x20000;
  // Groups still to sort, as [lo, hi, depth]: the names of order[lo..hi) agree before character depth.
  const stack: number[] = [0, n, 0];
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const hi = stack.pop() as number;
    const lo = stack.pop() as number;
    for (let i = lo; i < hi; i++) {
      const name = names[order[i] as number] as string;
      let key = 0;
      for (let j = depth; j < depth + width; j++) key = key * radix + (j < name.length ? name.charCodeAt(j) + 1 : 0);
      keys[i] = key;
    }
    sortByKeys(keys, order, lo, hi);
    for (let start = lo; start < hi; ) {
      const key = keys[start] as number;
      let end = start + 1;
      while (end < hi && keys[end] === key) end++;
      if (end - start > 1) {
        // A name that ended within these characters equals the others of its run: input order decides.
        if (key % radix === 0) order.subarray(start, end).sort();
        else stack.push(start, end, depth + width);
      }
      start = end;
    }
  }
  return order;
}

/** Sorts keys[lo..hi) ascending, moving order along (a quicksort; ties in any order). */
function sortByKeys(keys: Float64Array, order: Int32Array, lo: number, hi: number): void {
  const swap = (i: number, j: number): void => {
    const k = keys[i] as number;
    keys[i] = keys[j] as number;
    keys[j] = k;
    const o = order[i] as number;
    order[i] = order[j] as number;
    order[j] = o;
  };
  const stack = [lo, hi];
  while (stack.length > 0) {
    let right = stack.pop() as number;
    let left = stack.pop() as number;
    while (right - left > insertionRange) {
      const a = keys[left] as number;
      const b = keys[(left + right) >>> 1] as number;
      const c = keys[right - 1] as number;
      const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
      // Three-way partition: [left, lt) below the pivot, [lt, gt) equal, [gt, right) above.
      let lt = left;
      let gt = right;
      for (let i = left; i < gt; ) {
        const k = keys[i] as number;
        if (k < pivot) swap(lt++, i++);
        else if (k > pivot) swap(i, --gt);
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
      for (let j = i; j > left && (keys[j - 1] as number) > (keys[j] as number); j--) swap(j - 1, j);
    }
  }
}
