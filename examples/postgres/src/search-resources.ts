/**
 * searchResources in SQL: matching, scoring, order and cap run in the database, over the user's resources only.
 *
 * - `term`: the query's lowercased terms, numbered; each with its LIKE pattern (`%`, `_` and `\` escaped).
 * - `best`: each term's best score per entry over the entry's values that hold it: 100/80/60 for an exact,
 *   prefix or substring match of an id or name, half that (50/40/30) for another field. A term with three
 *   letters or digits in a row finds its values through the trigram index (LIKE); a shorter one, which has no
 *   trigram to look up, by scanning the values with strpos (cheaper than a trigram index read whole).
 * - `scored`: the entries that every term matched, scored with the mean of their terms' scores, rounded down.
 * Results are ordered by score, then by resourceName in code point order (collation "C"), and capped at 100.
 * @see openapi/paths/v1_resources_search.yaml
 */
import { parseSearchQuery, type ResponseBody, type Schemas, searchDenied } from "@compute-api/server";
import type { Principal } from "./authenticate.js";
import type { Queryable } from "./database/database.js";

/** Largest number of results of one search. */
export const maxResults = 100;

/** Entries the user may see: of the user's projects, or the user's billing accounts. ($1: the user) */
const visible = `(
  e.project_id IN (SELECT project_id FROM user_projects WHERE user_id = $1)
  OR e.billing_account_id IN (SELECT billing_account_id FROM user_billing_accounts WHERE user_id = $1)
)`;

/**
 * The search. $1: user id, $2: resource type or null, $3: lowercased terms (at least one), $4: the cap.
 * `values`: which values are read — all, or those of ids and names only (a fixed clause, never a value).
 */
const searchSqlOf = (values: "all" | "primary") => `
WITH term AS (
  SELECT ord::int AS ord, t,
    '%' || replace(replace(replace(t, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' AS pattern,
    t ~ '[a-z0-9]{3}' AS indexed
  FROM unnest($3::text[]) WITH ORDINALITY AS u(t, ord)
),
best AS (
  SELECT hit.ord, hit.entry_id,
    max(CASE
      WHEN hit.value = hit.t THEN 100
      WHEN starts_with(hit.value, hit.t) THEN 80
      ELSE 60
    END / CASE WHEN hit.is_primary THEN 1 ELSE 2 END) AS score
  FROM (
    SELECT term.ord, term.t, v.entry_id, v.is_primary, v.value
    FROM term JOIN search_values v ON v.value LIKE term.pattern
    WHERE term.indexed${values === "primary" ? " AND v.is_primary" : ""}
    UNION ALL
    SELECT term.ord, term.t, v.entry_id, v.is_primary, v.value
    FROM term JOIN search_values v ON strpos(v.value, term.t) > 0
    WHERE NOT term.indexed${values === "primary" ? " AND v.is_primary" : ""}
  ) AS hit
  GROUP BY hit.ord, hit.entry_id
),
scored AS (
  SELECT entry_id, (sum(score) / cardinality($3::text[]))::int AS score
  FROM best
  GROUP BY entry_id
  HAVING count(*) = cardinality($3::text[])
)
SELECT e.resource_type, e.resource_name, s.score, e.project_id, e.resource_id
FROM scored s JOIN search_entries e ON e.entry_id = s.entry_id
WHERE ($2::text IS NULL OR e.resource_type = $2::text) AND ${visible}
ORDER BY s.score DESC, e.resource_name COLLATE "C"
LIMIT $4`;

/** The results' objects, read for the (at most 100) rows of a search only, in the results' order. */
const withObjects = (rows: string) => `
SELECT r.resource_type, r.resource_name, r.score, resource_object(r.resource_type, r.project_id, r.resource_id) AS object
FROM (${rows}) AS r
ORDER BY r.score DESC, r.resource_name COLLATE "C"`;

/** The search over every value. */
export const searchSql = withObjects(searchSqlOf("all"));

/**
 * The search of one term over ids and names only. An entry whose id or name holds the term scores 60 or more,
 * any other at most 50: when this finds as many entries as the cap, they are the results, and the other fields'
 * values — most of them, and what a broad term (`proj`) finds in every resource — are never read.
 */
export const primarySearchSql = withObjects(searchSqlOf("primary"));

/**
 * A one-term search in one statement: the ids-and-names search, and the full one only when that did not fill the
 * cap (a gate on the first's count, which PostgreSQL evaluates once, before it would start the second).
 */
export const oneTermSearchSql = withObjects(`
WITH shortcut AS MATERIALIZED (${searchSqlOf("primary")})
SELECT * FROM shortcut WHERE (SELECT count(*) FROM shortcut) = $4
UNION ALL
SELECT * FROM (${searchSqlOf("all")}) AS full_search WHERE (SELECT count(*) FROM shortcut) < $4`);

/** $1: user id, $2: resource type, $3: the cap. Every resource of the type, score 0, in resourceName order. */
export const typeOnlySql = `
SELECT e.resource_type, e.resource_name, 0 AS score, resource_object(e.resource_type, e.project_id, e.resource_id) AS object
FROM search_entries e
WHERE e.resource_type = $2 AND ${visible}
ORDER BY e.resource_name COLLATE "C"
LIMIT $3`;

interface ResultRow {
  resource_type: Schemas["SearchResult"]["resourceType"];
  resource_name: string;
  score: number;
  object: object;
}

/** The best matches among what the user may access, best first. */
export async function searchResources(
  db: Queryable,
  user: Principal,
  query: string,
): Promise<ResponseBody<"searchResources">> {
  if (!user.canSearch) throw searchDenied();
  const { terms, type } = parseSearchQuery(query);
  let rows: ResultRow[];
  if (terms.length === 0) rows = await db.query<ResultRow>(typeOnlySql, [user.id, type ?? null, maxResults]);
  else {
    const params = [user.id, type ?? null, terms, maxResults];
    rows = await db.query<ResultRow>(terms.length === 1 ? oneTermSearchSql : searchSql, params);
  }
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
