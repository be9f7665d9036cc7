/**
 * searchResources in SQL: matching, scoring, order and cap run in the database, over the user's resources only,
 * reading one row per entry (search_documents, migration 005): its id and name values in one text and its other
 * values in another, with a separator before and after every value.
 *
 * - The query's distinct terms, each with how many times it was written (its weight): a term written twice scores
 *   twice, as the stub's index counts it, and is matched once.
 * - An entry must hold every term: a term of three letters or digits in a row is looked up through the trigram
 *   index of the two texts (LIKE); a shorter one, which has no trigram to look up, by strpos over them.
 * - Each term scores its best match by strpos over the texts: in the id or name texts (exact — the term between
 *   separators —, prefix — after one —, or substring), else in the others; the six scores are the rules'
 *   (`matchScores`), passed as parameters, as is the cap (`maxSearchResults`).
 * - The score is the weighted sum over the number of terms, rounded down; then ordered by score and
 *   resourceName in code point order (collation "C"), capped, and only then are the objects read.
 * - One distinct term: its ids-and-names search first, the full one only when that does not fill the cap.
 *
 * A query holds at most 8 terms besides its type (parseSearchQuery), so a search reads each entry at most once,
 * with at most 8 terms' strpos calls: its cost is bounded by the size of the data, whatever the terms.
 * The SQL text is made of fixed fragments, one per term's place; the terms, the scores and the cap are parameters.
 * @see openapi/paths/v1_resources_search.yaml
 */
import { matchScores, maxSearchResults, parseSearchQuery, searchDenied } from "@compute-api/rules";
import type { ResponseBody, Schemas } from "@compute-api/server";
import type { Principal } from "./authenticate.js";
import type { Queryable, SqlValue } from "./database/database.js";

/** Entries the user may see: of the user's projects, or the user's billing accounts. ($1: the user) */
const visible = (alias: string) => `(
  ${alias}.project_id IN (SELECT project_id FROM user_projects WHERE user_id = $1)
  OR ${alias}.billing_account_id IN (SELECT billing_account_id FROM user_billing_accounts WHERE user_id = $1)
)`;

/** The separator before and after each value of a document's texts (migration 005). */
const separator = "E'\\x1f'";

/** The scores of an exact, prefix and substring match of an id or name ($5 to $7) and of another value ($8 to $10). */
const scoreParams = [...matchScores.primary, ...matchScores.other];
const primaryScoreParam = (i: 0 | 1 | 2) => `$${5 + i}::int`;
const otherScoreParam = (i: 0 | 1 | 2) => `$${8 + i}::int`;

/**
 * A distinct term of the query, by its place: the term is parameter `$(9 + 2 × place)` and its weight the next one,
 * each a parameter of its own rather than an item of an array, so that neither is taken out of an array per row.
 * `indexed`: whether it has a trigram the index can look up.
 */
interface TermSlot {
  place: number;
  indexed: boolean;
}

/** The parameters of the term at `place` and of its weight. */
const termParam = (place: number) => `$${9 + 2 * place}::text`;
const weightParam = (place: number) => `$${10 + 2 * place}::int`;

/** Whether a term has a trigram to look up: three letters or digits in a row. */
const hasTrigram = (term: string): boolean => /[a-z0-9]{3}/.test(term);

/** The entries holding the term at `place`. */
function matchOf({ place, indexed }: TermSlot): string {
  const term = termParam(place);
  return indexed
    ? `(d.primary_text LIKE search_like_pattern(${term}) OR d.other_text LIKE search_like_pattern(${term}))`
    : `(strpos(d.primary_text, ${term}) > 0 OR strpos(d.other_text, ${term}) > 0)`;
}

/** The entries whose id or name holds the term at `place`. */
function primaryMatchOf({ place, indexed }: TermSlot): string {
  const term = termParam(place);
  return indexed ? `d.primary_text LIKE search_like_pattern(${term})` : `strpos(d.primary_text, ${term}) > 0`;
}

/** The best score of the term at `place` in an entry that holds it. */
function scoreOf({ place }: TermSlot): string {
  const term = termParam(place);
  return `CASE
      WHEN strpos(d.primary_text, ${term}) > 0 THEN CASE
        WHEN strpos(d.primary_text, ${separator} || ${term}) = 0 THEN ${primaryScoreParam(2)}
        WHEN strpos(d.primary_text, ${separator} || ${term} || ${separator}) > 0 THEN ${primaryScoreParam(0)}
        ELSE ${primaryScoreParam(1)} END
      WHEN strpos(d.other_text, ${separator} || ${term}) = 0 THEN ${otherScoreParam(2)}
      WHEN strpos(d.other_text, ${separator} || ${term} || ${separator}) > 0 THEN ${otherScoreParam(0)}
      ELSE ${otherScoreParam(1)} END`;
}

/**
 * The best `$3` entries for the terms, with their scores, in order. $1: user id, $2: resource type or null, $3: the
 * cap, $4: the number of terms (the weights' sum), $5 to $10: the scores, then each distinct lowercased term and its
 * weight.
 * `values`: which entries are read — all, or those whose id or name holds the (one) term.
 */
function rankedSql(slots: readonly TermSlot[], values: "all" | "primary"): string {
  const conditions = slots.map(values === "primary" ? primaryMatchOf : matchOf);
  const score = slots.map((slot) => `${weightParam(slot.place)} * ${scoreOf(slot)}`).join("\n    + ");
  return `
  SELECT d.resource_type, d.resource_name, d.project_id, d.resource_id, ((${score}) / $4::int)::int AS score
  FROM search_documents d
  WHERE ($2::text IS NULL OR d.resource_type = $2::text) AND ${visible("d")}
    AND ${conditions.join("\n    AND ")}
  ORDER BY score DESC, d.resource_name
  LIMIT $3`;
}

/** The results' objects, read for the (at most `maxSearchResults`) rows of a search only, in the results' order. */
const withObjects = (rows: string) => `
SELECT r.resource_type, r.resource_name, r.score, resource_object(r.resource_type, r.project_id, r.resource_id) AS object
FROM (${rows}) AS r
ORDER BY r.score DESC, r.resource_name COLLATE "C"`;

/** The search of the terms (by place and whether each has a trigram) over every value. */
export function searchSql(slots: readonly TermSlot[]): string {
  return withObjects(rankedSql(slots, "all"));
}

/**
 * The search of one term over ids and names only. Every score of an id or name match is above every score of
 * another value's (`matchScores`): when this finds as many entries as the cap, they are the results, and the other
 * values of every entry — what a broad term (`proj`) finds in every resource — are never scored.
 */
export function primarySearchSql(slot: TermSlot): string {
  return withObjects(rankedSql([slot], "primary"));
}

/**
 * A one-term search in one statement: the ids-and-names search, and the full one only when that did not fill the
 * cap (a gate on the first's count, which PostgreSQL evaluates once, before it would start the second).
 */
export function oneTermSearchSql(slot: TermSlot): string {
  return withObjects(`
WITH shortcut AS MATERIALIZED (${rankedSql([slot], "primary")})
SELECT * FROM shortcut WHERE (SELECT count(*) FROM shortcut) = $3
UNION ALL
SELECT * FROM (${rankedSql([slot], "all")}) AS full_search WHERE (SELECT count(*) FROM shortcut) < $3`);
}

/** $1: user id, $2: resource type, $3: the cap. Every resource of the type, score 0, in resourceName order. */
export const typeOnlySql = `
SELECT e.resource_type, e.resource_name, 0 AS score, resource_object(e.resource_type, e.project_id, e.resource_id) AS object
FROM search_entries e
WHERE e.resource_type = $2 AND ${visible("e")}
ORDER BY e.resource_name COLLATE "C"
LIMIT $3`;

/**
 * A query's distinct terms with their weights: the slots of its SQL, and its parameters from $4 on (the number of
 * terms, the scores, then each term and its weight).
 */
export function termsOf(terms: readonly string[]): { slots: TermSlot[]; params: (string | number)[] } {
  const weights = new Map<string, number>();
  for (const term of terms) weights.set(term, (weights.get(term) ?? 0) + 1);
  return {
    slots: [...weights.keys()].map((term, i) => ({ place: i + 1, indexed: hasTrigram(term) })),
    params: [terms.length, ...scoreParams, ...[...weights].flat()],
  };
}

interface ResultRow {
  resource_type: Schemas["SearchResult"]["resourceType"];
  resource_name: string;
  score: number;
  object: object;
}

/** The statement a search runs and its parameters: the type alone, one term (ids and names first), or several. */
export function searchStatement(user: Principal, query: string): { sql: string; params: SqlValue[] } {
  const { terms, type } = parseSearchQuery(query);
  const head = [user.id, type ?? null, maxSearchResults];
  if (terms.length === 0) return { sql: typeOnlySql, params: head };
  const { slots, params } = termsOf(terms);
  const [first] = slots;
  return {
    sql: slots.length === 1 && first ? oneTermSearchSql(first) : searchSql(slots),
    params: [...head, ...params],
  };
}

/**
 * The best matches among what the user may access, best first. `signal` cancels the statement (the request's
 * deadline passed, or its client went away).
 */
export async function searchResources(
  db: Queryable,
  user: Principal,
  query: string,
  signal?: AbortSignal,
): Promise<ResponseBody<"searchResources">> {
  if (!user.canSearch) throw searchDenied();
  const { sql, params } = searchStatement(user, query);
  const rows = await db.query<ResultRow>(sql, params, signal ? { signal } : {});
  return {
    results: rows.map(
      (row) =>
        ({
          resourceName: row.resource_name,
          resourceType: row.resource_type,
          score: row.score,
          [row.resource_type]: row.object,
        }) as Schemas["SearchResult"],
    ),
  };
}
