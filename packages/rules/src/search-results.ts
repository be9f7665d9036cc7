/**
 * What one search answers at most: the spec caps the results (the response's results `maxItems`), with no pagination.
 * @see openapi/components/schemas/SearchResourcesResponse.yaml
 */
import { maxSearchResults as cap } from "@compute-api/spec/facts";

/** The most results one search returns: its best, by score and then resourceName. */
export const maxSearchResults: number = cap;
