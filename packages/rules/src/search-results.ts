/**
 * What one search answers at most: the spec caps the results, with no pagination.
 * @see openapi/paths/v1_resources_search.yaml
 */

/** The most results one search returns: its best, by score and then resourceName. */
export const maxSearchResults = 100;
