/**
 * What search reads of a resource, as the spec defines it: its id and name (`displayName` of a billing account),
 * the primary fields, and its other top-level string and string-array fields with its resourceName.
 * @see openapi/paths/v1_resources_search.yaml
 */
import type { ResourceType } from "./search-query.js";

/**
 * Visits a resource's search values as they are (not lowercased), each with whether it is a primary field's; a
 * value may repeat. Called once per resource at load, so it allocates nothing per resource.
 */
export function visitSearchFields(
  resourceType: ResourceType,
  resourceName: string,
  resource: Readonly<Record<string, unknown>>,
  visit: (value: string, primary: boolean) => void,
): void {
  const nameField = resourceType === "billingAccount" ? "displayName" : "name";
  visit(resourceName, false);
  // for…in allocates no array of keys per resource, as Object.keys does; the own-property check keeps its set.
  for (const key in resource) {
    if (!Object.hasOwn(resource, key)) continue;
    const value = resource[key];
    const primary = key === "id" || key === nameField;
    if (typeof value === "string") visit(value, primary);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") visit(item, primary);
  }
}

/** A resource's distinct search values, lowercased (as the query's terms are), split as they score. */
export interface SearchValues {
  /** Of the id and name: scored `matchScores.primary` for an exact, prefix and substring match (search-score.ts). */
  primary: Set<string>;
  /** Of the other fields and the resourceName: scored `matchScores.other`. */
  other: Set<string>;
}

/** The distinct lowercased search values of a resource. */
export function searchValues(
  resourceType: ResourceType,
  resourceName: string,
  resource: Readonly<Record<string, unknown>>,
): SearchValues {
  const values: SearchValues = { primary: new Set(), other: new Set() };
  visitSearchFields(resourceType, resourceName, resource, (value, primary) =>
    (primary ? values.primary : values.other).add(value.toLowerCase()),
  );
  return values;
}
