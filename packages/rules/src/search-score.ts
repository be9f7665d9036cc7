/**
 * How search scores a match, as the spec states it: each term scores its best match — 100, 80 and 60 for an exact,
 * prefix and substring match of the id or name, 50, 40 and 30 of any other field — and a result scores the mean
 * of its terms' scores, rounded down. An implementation takes its numbers from here (the stub's index, the
 * Postgres example's SQL, the conformance runner's check), never from a literal of its own.
 * @see openapi/paths/v1_resources_search.yaml
 */
import type { SearchValues } from "./search-fields.js";

/** The scores of a term's exact, prefix and substring match of one kind of field. */
export type MatchScores = readonly [exact: number, prefix: number, substring: number];

/**
 * The scores of a match of a primary field (id and name) and of any other. Every primary score is above every
 * other one: an implementation may rely on it (an entry whose id or name holds a term outranks any other).
 */
export const matchScores: { readonly primary: MatchScores; readonly other: MatchScores } = {
  primary: [100, 80, 60],
  other: [50, 40, 30],
};

/** The highest score of a term and of a result: an exact match of an id or name. */
export const maxSearchScore: number = matchScores.primary[0];

/** The score of a (lowercased) term against one (lowercased) value: its match's, 0 when it does not occur in it. */
export function valueScore(value: string, term: string, primary: boolean): number {
  const [exact, prefix, substring] = primary ? matchScores.primary : matchScores.other;
  return value === term ? exact : value.startsWith(term) ? prefix : value.includes(term) ? substring : 0;
}

/** The score of a (lowercased) term against a resource's values: its best match, 0 for none. */
export function termScore(values: SearchValues, term: string): number {
  let best = 0;
  for (const value of values.primary) best = Math.max(best, valueScore(value, term, true));
  for (const value of values.other) best = Math.max(best, valueScore(value, term, false));
  return best;
}

/** A result's score: the mean of its terms' scores (each term as written), rounded down; 0 for no term. */
export function resultScore(termScores: readonly number[]): number {
  if (termScores.length === 0) return 0;
  return Math.floor(termScores.reduce((sum, score) => sum + score, 0) / termScores.length);
}
