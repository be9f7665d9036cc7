/**
 * The admin API's checks of what a request gives it, each turned into the interface's violations: the 400 of a data
 * set that cannot be served (restore and load), and the journal's filter read from a `GET /__stub/requests` query.
 * The fault settings have their own file, admin-faults.ts; the routes that use these are in admin-state.ts (restore
 * and load) and admin.ts (the journal).
 */
import { type FieldViolation, invalidRequest } from "@compute-api/contract";
import type { FixtureError } from "@compute-api/fixtures";
import type { JournalFilter } from "./journal.js";

/** The 400 of a data set that cannot be served: one violation per problem, named by its JSON pointer in the body. */
export function unservable(error: FixtureError, prefix: string): ReturnType<typeof invalidRequest> {
  const violations: FieldViolation[] = error.problems.map((problem) => {
    const at = problem.indexOf(": ");
    return at > 0 && problem.startsWith("/")
      ? { field: `${prefix}${problem.slice(0, at)}`, description: problem.slice(at + 2) }
      : { field: prefix || "/", description: problem };
  });
  return invalidRequest(violations, undefined, violations.length);
}

/** The journal's filter from a query, or the violations of its values. */
export function filterOf(query: Record<string, unknown>): JournalFilter | FieldViolation[] {
  const filter: JournalFilter = {};
  const violations: FieldViolation[] = [];
  const names = ["method", "path", "operationId", "status", "since", "limit"];
  for (const [name, value] of Object.entries(query)) {
    const field = `query.${name}`;
    if (!names.includes(name)) {
      violations.push({ field, description: `is not a filter of the journal (${names.join(", ")})` });
      continue;
    }
    if (typeof value !== "string") {
      violations.push({ field, description: "must be given once" });
      continue;
    }
    if (name === "status" && !/^([1-5]\d\d|[1-5]xx)$/i.test(value))
      violations.push({ field, description: "must be a status such as 404, or a class such as 4xx" });
    else if (name === "since" && !/^\d+$/.test(value) && Number.isNaN(Date.parse(value)))
      violations.push({ field, description: "must be a seq (a whole number) or an ISO 8601 time" });
    else if (name === "limit" && !/^\d+$/.test(value))
      violations.push({ field, description: "must be a whole number" });
    else if (name === "limit") filter.limit = Number(value);
    else filter[name as "method" | "path" | "operationId" | "status" | "since"] = value;
  }
  return violations.length > 0 ? violations : filter;
}
