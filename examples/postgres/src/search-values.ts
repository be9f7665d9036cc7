/**
 * A resource's search text, as the spec defines what is searched: the distinct lowercased values of its id and
 * name (`displayName` of a billing account) — the primary fields — and of its other top-level string and
 * string-array fields, with its resourceName. Lowercased here, in JavaScript, as the query's terms are: PostgreSQL's
 * lower() differs from toLowerCase for some characters.
 * @see openapi/paths/v1_resources_search.yaml
 */
import type { ResourceType } from "@compute-api/server";

/** The lowercased values of one resource, split as they score. */
export interface SearchValues {
  /** Scored 100, 80, 60 for an exact, prefix and substring match. */
  primary: Set<string>;
  /** Scored 50, 40, 30. */
  other: Set<string>;
}

/** The search values of a resource, whose object is as the API returns it. */
export function searchValues(type: ResourceType, resourceName: string, resource: object): SearchValues {
  const nameField = type === "billingAccount" ? "displayName" : "name";
  const primary = new Set<string>();
  const other = new Set<string>([resourceName.toLowerCase()]);
  for (const [key, value] of Object.entries(resource)) {
    const target = key === "id" || key === nameField ? primary : other;
    if (typeof value === "string") target.add(value.toLowerCase());
    else if (Array.isArray(value))
      for (const item of value) if (typeof item === "string") target.add(item.toLowerCase());
  }
  return { primary, other };
}
