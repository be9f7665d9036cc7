/** The dictionary of distinct values: its packed ranks and its scans agree with plain string matching. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Match } from "../../src/store/search-dictionary.js";
import { SearchDictionaryBuilder } from "../../src/store/search-dictionary-builder.js";

describe("SearchDictionary", () => {
  // Few letters make n-grams common (most blocks are searched); many letters make the block filter selective.
  const text = (alphabet: string, max: number) =>
    fc.string({ unit: fc.constantFrom(...alphabet), minLength: 0, maxLength: max });

  // Upper case letters are lowercased as values are added (\u0130 into two characters, \u212A into ASCII "k").
  it.each([
    ["a small alphabet", "aB-"],
    ["a large alphabet", "abcdefghijklmnopqrstuvwxyzABC0123456789-"],
    ["characters past Latin-1", "aB\u0100\u0130\u212Ak\u{1F600}"],
  ])("finds exact, prefix and substring values like plain string matching, with %s", (_name, alphabet) => {
    fc.assert(
      fc.property(
        fc.array(fc.array(text(alphabet, 12), { maxLength: 4 }), { minLength: 1, maxLength: 60 }),
        fc.array(
          text(alphabet, 6).map((term) => term.toLowerCase()),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
        (entries, terms, blockValues, sortKeys) => {
          // The entries are added in their own order and ranked in another.
          const builder = new SearchDictionaryBuilder();
          entries.forEach((held, entry) => {
            for (const value of held) builder.add(value, entry);
          });
          const order = Int32Array.from(entries, (_, i) => i).sort(
            (a, b) => (sortKeys[a] as number) - (sortKeys[b] as number) || a - b,
          );
          const dictionary = builder.build(order, blockValues);

          // Values in order of first appearance by rank, each with its ranks.
          const values: string[] = [];
          const ranks = new Map<string, number[]>();
          order.forEach((entry, rank) => {
            for (const value of (entries[entry] as string[]).map((v) => v.toLowerCase())) {
              if (!ranks.has(value)) {
                values.push(value);
                ranks.set(value, []);
              }
              const list = ranks.get(value) as number[];
              if (list.at(-1) !== rank) list.push(rank);
            }
          });
          expect(dictionary.size).toBe(values.length);
          values.forEach((value, id) => {
            const { offsets, postings } = dictionary;
            expect([...postings.subarray(offsets[id], offsets[id + 1])]).toEqual(ranks.get(value));
          });
          for (const term of terms) {
            const drain = (match: Match) => {
              const scan = dictionary.scan(term, match);
              const ids: number[] = [];
              for (let id = scan.next(); id >= 0; id = scan.next()) ids.push(id);
              return ids;
            };
            const ids = (match: (value: string) => boolean) =>
              values.flatMap((value, id) => (match(value) ? [id] : []));
            expect(drain("exact")).toEqual(ids((v) => v === term));
            expect(drain("prefix")).toEqual(ids((v) => v !== term && v.startsWith(term)));
            expect(drain("substring")).toEqual(ids((v) => !v.startsWith(term) && v.includes(term)));
          }
        },
      ),
    );
  });

  it("numbers values in order of first appearance by rank, so that lowest ranks never decrease with ids", () => {
    const builder = new SearchDictionaryBuilder();
    const held = [["b", "A"], ["B"], ["c"], ["a", "a"]];
    held.forEach((values, entry) => {
      for (const value of values) builder.add(value, entry);
    });
    // Entries 0 to 3 at ranks 3, 1, 0 and 2.
    const dictionary = builder.build(Int32Array.of(2, 1, 3, 0));
    const exact = (term: string) => dictionary.scan(term, "exact").next();
    expect(["c", "b", "a", "d", "A"].map(exact)).toEqual([0, 1, 2, -1, -1]);
    expect([...dictionary.offsets]).toEqual([0, 1, 3, 5]);
    expect([...dictionary.postings]).toEqual([0, 1, 3, 2, 3]);
  });
});
