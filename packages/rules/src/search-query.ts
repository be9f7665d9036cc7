/**
 * Reads a search query: terms split at white space, at most `maxTypeTerms` (one) `type:<resourceType>` term and at
 * most `maxSearchTerms` others, as the SearchQuery parameter's `x-search-terms` states (`@compute-api/spec/facts`).
 * @see openapi/components/parameters/SearchQuery.yaml
 */
import { searchResourceTypes, searchTerms } from "@compute-api/spec/facts";
import {
  searchTermsRequired,
  searchTooManyTerms,
  searchTypeRepeated,
  searchTypeUnknown,
} from "./search-query-violations.js";
import type { Schemas } from "./types.js";

/** The resource types search knows, such as `cluster` or `virtualMachine`. */
export type ResourceType = Schemas["SearchResult"]["resourceType"];

/** Every search resource type, by its lowercased name: SearchResult's discriminator mapping. */
export const resourceTypes: ReadonlyMap<string, ResourceType> = new Map(
  searchResourceTypes.map((t) => [t.toLowerCase(), t]),
);

/** A query taken apart: lowercased terms that must all match, and the type it is narrowed to. */
export interface SearchQuery {
  terms: string[];
  type: ResourceType | undefined;
}

const { typePrefix, maxTypeTerms } = searchTerms;

/**
 * The most terms a query may hold besides its `type:` term, each counted as written (a repeated term each time):
 * what one search may cost is bounded by it. Counted as written, not as distinct lowercased terms, so that a
 * client counts them without lowercasing as the server does.
 */
export const maxSearchTerms: number = searchTerms.maxTerms;

/**
 * Parses a query; throws a 400 naming `query` for no terms, more than one type term, an unknown type or more than
 * `maxSearchTerms` other terms (the catalogue of search query violations, `search-query-violations.ts`).
 */
export function parseSearchQuery(query: string): SearchQuery {
  const words = query.split(/\s+/u).filter((w) => w !== "");
  if (words.length === 0) throw searchTermsRequired();
  const terms: string[] = [];
  const types: string[] = [];
  for (const word of words) {
    const lower = word.toLowerCase();
    if (lower.startsWith(typePrefix)) types.push(lower.slice(typePrefix.length));
    else terms.push(lower);
  }
  if (types.length > maxTypeTerms) throw searchTypeRepeated();
  const [name] = types;
  const type = name === undefined ? undefined : resourceTypes.get(name);
  if (name !== undefined && type === undefined) throw searchTypeUnknown([...resourceTypes.values()]);
  if (terms.length > maxSearchTerms) throw searchTooManyTerms(terms.length, maxSearchTerms);
  return { terms, type };
}
