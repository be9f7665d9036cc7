/** The dictionary of distinct values: its trigram lookup and its scan agree with plain string matching. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SearchDictionary } from "../../src/store/search-dictionary.js";

const scores = [100, 80, 60] as const;

/** What score() must give: per rank, the best of exact, prefix and substring matches of term. */
function naive(values: Map<number, Set<string>>, term: string, size: number): number[] {
  const best = new Array<number>(size).fill(0);
  for (const [rank, held] of values) {
    for (const v of held) {
      const s = v === term ? 100 : v.startsWith(term) ? 80 : v.includes(term) ? 60 : 0;
      best[rank] = Math.max(best[rank] ?? 0, s);
    }
  }
  return best;
}

function scored(dictionary: SearchDictionary, term: string, size: number): { best: number[]; touched: number[] } {
  const best = new Uint8Array(size);
  const touched = new Int32Array(size);
  const count = dictionary.score(term, scores, best, touched, 0);
  return { best: [...best], touched: [...touched.slice(0, count)].sort((a, b) => a - b) };
}

describe("SearchDictionary", () => {
  // Few letters make trigram lists long (so terms are scanned for); many values and long terms use the lists.
  const text = (alphabet: string, max: number) =>
    fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: max });

  it.each([
    ["a small alphabet (scanned)", "ab-"],
    ["a large alphabet (trigram lists)", "abcdefghijklmnopqrstuvwxyz0123456789-"],
  ])("scores like plain string matching, with %s, before and after changes", (_name, alphabet) => {
    fc.assert(
      fc.property(
        fc.array(fc.array(text(alphabet, 12), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 60 }),
        fc.array(text(alphabet, 6), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), text(alphabet, 12)), { maxLength: 5 }),
        (entries, terms, changes) => {
          const held = new Map(entries.map((values, rank) => [rank, new Set(values)]));
          const dictionary = new SearchDictionary();
          for (const [rank, values] of held) for (const v of values) dictionary.add(v, rank);
          dictionary.pack();
          const check = () => {
            for (const term of terms) {
              const want = naive(held, term, entries.length);
              const got = scored(dictionary, term, entries.length);
              expect(got.best).toEqual(want);
              expect(got.touched).toEqual(want.flatMap((s, rank) => (s > 0 ? [rank] : [])));
            }
          };
          check();
          // Replace one value of some entries, as refresh does.
          for (const [r, value] of changes) {
            const rank = r % entries.length;
            const values = held.get(rank) ?? new Set();
            const [old] = values;
            if (old !== undefined && !values.has(value)) {
              values.delete(old);
              dictionary.remove(old, rank);
              values.add(value);
              dictionary.add(value, rank);
            }
          }
          dictionary.pack();
          check();
        },
      ),
    );
  });
});
