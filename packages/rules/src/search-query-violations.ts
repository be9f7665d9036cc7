/**
 * The catalogue of a refused search query: every reason the BadRequest detail of a 400 for `query` names, with
 * what the violation says, and a named factory for each answer. The search query's parser (`parseSearchQuery`,
 * beside it) builds its 400s here and never spells a reason; this package's README lists the catalogue for users
 * (keep the two alike: a test compares them).
 * @see openapi/paths/v1_resources_search.yaml
 */
import { type ApiError, type FieldViolation, invalidRequest } from "@compute-api/contract";

/** Every reason of a refused query, with the description of its violation (a factory may say more). */
export const searchQueryViolations = {
  "terms-required": { field: "query", description: "must hold at least one term" },
  "type-repeated": { field: "query", description: "may hold at most one `type:` term" },
  "type-unknown": { field: "query", description: "names an unknown resource type" },
  "too-many-terms": { field: "query", description: "holds too many terms besides its `type:` term" },
} as const satisfies Record<string, { field: string; description: string }>;

/** A reason of a refused search query. */
export type SearchQueryReason = keyof typeof searchQueryViolations;

/** 400 with the one violation of `query` of a reason, its description the catalogue's or `description`. */
function queryRefused(reason: SearchQueryReason, description?: string): ApiError {
  const { field, description: standard } = searchQueryViolations[reason];
  const violation: FieldViolation = { field, description: description ?? standard, reason };
  return invalidRequest([violation]);
}

/** 400: the query holds no term at all (only white space). */
export const searchTermsRequired = (): ApiError => queryRefused("terms-required");
/** 400: the query holds more than one `type:` term. */
export const searchTypeRepeated = (): ApiError => queryRefused("type-repeated");
/** 400: the `type:` term names no resource type of `known`. */
export const searchTypeUnknown = (known: readonly string[]): ApiError =>
  queryRefused("type-unknown", `${searchQueryViolations["type-unknown"].description}; use one of ${known.join(", ")}`);
/** 400: the query holds `count` terms besides its `type:` term, more than `max`. */
export const searchTooManyTerms = (count: number, max: number): ApiError =>
  queryRefused("too-many-terms", `holds ${count} terms besides its \`type:\` term; at most ${max} are allowed`);
