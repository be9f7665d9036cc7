/** The queries of the search benchmarks (the stub's bench:search and examples/postgres's), with names from the data set. */
import type { Fixtures } from "@compute-api/fixtures";

/** Each query with its label: an exact id from the data, one word, two terms, type and word, type only, broad, no match. */
export function searchMix(fixtures: Fixtures): [label: string, query: string][] {
  const someCluster = fixtures.clusters?.[Math.floor((fixtures.clusters?.length ?? 0) / 2)];
  return [
    ["exact id", someCluster?.id ?? "cl"],
    ["one word", "train"],
    ["two terms", "train dc-fra-1"],
    ["type and word", "type:cluster gpu"],
    ["type only", "type:volume"],
    ["broad (every project resource)", "proj"],
    ["no match", "nothing-matches-this"],
  ];
}
