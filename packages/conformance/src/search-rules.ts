/**
 * What the search operation's description states of a query and of each result, judged from a search's answer
 * alone: which queries are refused (search_query_rules), that every result matches every term
 * (search_matching), its score (search_score) and its resourceName (search_resource_name). The query is read and
 * a result's fields are taken as the server kit reads them (`@compute-api/rules`), so that the runner holds a
 * backend to the rules the stub keeps.
 * @see openapi/paths/v1_resources_search.yaml
 */
import { ApiError } from "@compute-api/contract";
import {
  parseSearchQuery,
  resourceNameOf,
  resultScore,
  type SearchQuery,
  searchValues,
  termScore,
} from "@compute-api/rules";
import { type Verdicts, violationsOf } from "./checks.js";
import type { Answer } from "./http.js";
import { maxSearchTerms } from "./spec-facts.js";

/** What the rules make of a query: its terms and type, or the field violations of the 400 it must get. */
type QueryOutcome = { query: SearchQuery } | { refused: { field: string; reason?: string | undefined }[] };

/**
 * The outcome of a query, or undefined where the spec leaves it open: "white space" other than the space, which
 * one backend may split at and another not.
 */
export function queryOutcome(query: string): QueryOutcome | undefined {
  if (/[^\S ]/u.test(query)) return undefined;
  try {
    return { query: parseSearchQuery(query) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { refused: violationsOf(error.toBody()) };
  }
}

/** search_query_rules: a query the rules refuse gets 400 naming `query` (and the reason they name); any other does not. */
export function queryRuleVerdict(answer: Answer, query: string): string | null | undefined {
  const outcome = queryOutcome(query);
  if (!outcome || answer.status === 0) return undefined;
  if ("query" in outcome)
    return answer.status === 400
      ? `a query the rules accept was refused with 400 (naming ${JSON.stringify(violationsOf(answer.json).map((v) => v.field))})`
      : null;
  const want = outcome.refused[0];
  if (answer.status !== 400) return `a query the rules refuse (${want?.reason}) answered ${answer.status}, not 400`;
  const named = violationsOf(answer.json).filter((v) => v.field === "query");
  if (named.length === 0) return `the 400 does not name query (${want?.reason})`;
  // The spec names the reason of one rule only: too many terms is `too-many-terms`.
  if (want?.reason === "too-many-terms" && !named.some((v) => v.reason === "too-many-terms"))
    return `the 400 for more than ${maxSearchTerms} terms names query with reason ${JSON.stringify(named[0]?.reason)}, not "too-many-terms"`;
  return null;
}

type Result = { resourceName?: unknown; resourceType?: unknown; score?: unknown } & Record<string, unknown>;

/**
 * search_matching, search_score and search_resource_name on a 200: each result is judged from the typed object it
 * carries. Matching and score are judged only for queries of ASCII characters, whose lowercasing no language's
 * rules change.
 */
export function searchRuleVerdicts(answer: Answer, query: string): Verdicts {
  const results = (answer.json as { results?: Result[] } | undefined)?.results;
  if (answer.status !== 200 || !Array.isArray(results) || results.length === 0) return {};
  const names: string[] = [];
  const unmatched: string[] = [];
  const misscored: string[] = [];
  const outcome = queryOutcome(query);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is every character that is not ASCII
  const terms = outcome && "query" in outcome && !/[^\u0000-\u007f]/.test(query) ? outcome.query.terms : undefined;
  for (const r of results) {
    const type = String(r.resourceType);
    const resource = r[type];
    if (typeof resource !== "object" || resource === null) continue;
    const object = resource as Record<string, unknown>;
    const name = String(r.resourceName);
    // A type the spec does not know has no name to expect: the schema check refuses it.
    const expected = resourceNameOf(type, { id: String(object.id), projectId: String(object.projectId) });
    if (expected !== undefined && name !== expected)
      names.push(`${name} for the ${type} ${String(object.id)}, not ${expected}`);
    if (!terms) continue;
    // The spec's resource types are the server kit's; a type it does not know is the schema check's to refuse.
    const values = searchValues(type as Parameters<typeof searchValues>[0], name, object);
    const scores = terms.map((t) => termScore(values, t));
    const missing = terms.filter((_, i) => scores[i] === 0);
    if (missing.length > 0) unmatched.push(`${name} matches no field for ${missing.map((t) => `'${t}'`).join(", ")}`);
    else {
      const score = resultScore(scores);
      if (r.score !== score) misscored.push(`${name} scored ${String(r.score)}, not ${score}`);
    }
  }
  const verdict = (problems: string[]) => (problems.length === 0 ? null : problems.slice(0, 3).join("; "));
  return {
    search_resource_name: verdict(names),
    ...(terms ? { search_matching: verdict(unmatched), search_score: verdict(misscored) } : {}),
  };
}
