/** The order of the index's entries: code point order of their names, as a comparator sort gives it. */
import { compareCodePoints } from "@compute-api/rules";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameOrder } from "../../src/store/name-order.js";

/** The order the index had before: a stable comparator sort (on lone surrogates compareCodePoints is no total order). */
const comparatorOrder = (names: string[]) =>
  names.map((_, i) => i).sort((a, b) => compareCodePoints(names[a] as string, names[b] as string));

describe("nameOrder", () => {
  it.each([
    ["a few letters (long shared prefixes, repeats)", ["a", "b", "/"]],
    ["characters around the surrogates", ["a", "\uD7FF", "\uE000", "\uFFFF", "\u{1F600}", "\u{10000}"]],
    ["lone surrogates", ["a", "\uD800", "\uDC00", "\uE000"]],
  ])("sorts like a comparator sort by compareCodePoints, equal names in input order, with %s", (_name, units) => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom(...units), maxLength: 8 }), { maxLength: 200 }),
        (names) => {
          expect([...nameOrder(names)]).toEqual(comparatorOrder(names));
        },
      ),
    );
  });

  it("sorts resource paths that share most of their characters", () => {
    const names = Array.from({ length: 5000 }, (_, i) => `projects/proj-${(i * 7919) % 97}/volumes/vol-${i % 13}`);
    expect([...nameOrder(names)]).toEqual(comparatorOrder(names));
  });
});
