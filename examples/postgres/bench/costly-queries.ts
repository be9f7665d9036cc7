/**
 * The most expensive searches a client can send over the stub's generated data set, for the search cost test and
 * the bench: 8 terms (the most a query may hold besides its type), each held by nearly every resource, so that
 * every entry is read and every term scored against it. Found by measuring shapes over 100,000 resources: one-
 * and two-character terms (no trigram to look up: every entry is read), terms with trigrams that every resource
 * holds (the index finds every entry), and both; the same term written 8 times is one term of weight 8, cheaper.
 */

/** Each costly query with its shape. */
export const costlyQueries: [shape: string, query: string][] = [
  ["8 one-letter terms of every resourceName", "p r o j e c t s"],
  ["8 one-letter terms, vowels and common letters", "a e i o u r s t"],
  ["8 one-character terms, letters, digits and a dash", "e 0 - 1 2 3 c s"],
  ["8 digits", "0 1 2 3 4 5 6 7"],
  ["8 terms of `projects/` found only after it, no prefix", "/ s/ ts/ cts/ ects/ jects/ ojects/ rojects/"],
  ["8 two-letter terms", "pr oj ec ts cl us te rs"],
  ["8 terms with trigrams every resourceName holds", "pro roj oje jec ect cts proj roje"],
  ["one letter written 8 times", "a a a a a a a a"],
];

/** A cheap search, to send beside a costly one: a type alone, read in name order from its index. */
export const cheapQuery = "type:volume";
