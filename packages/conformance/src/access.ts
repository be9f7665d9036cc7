/**
 * What the run's key may see, learned before the run from its own searches of `type:project` and
 * `type:billingAccount` (read-only): the access search_access holds every result to, and the ids found, which
 * the valid searches use as words so that they find something. These are the run's first requests: a backend
 * that does not answer them, or refuses the key, stops the run before anything is checked.
 */
import { maxSearchResults } from "@compute-api/rules";
import type { Access } from "./checks.js";
import type { RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";

/** What the key sees (undefined when it sees nothing), the words to search for, and a note or a warning. */
export interface Discovered {
  access: Access | undefined;
  words: string[];
  note: string;
  /** Set when the key sees no project and no billing account: the search checks can then prove nothing. */
  warning?: string;
}

/**
 * Searches the key's projects and billing accounts; throws when the backend gives no answer at all (it cannot be
 * reached, or does not answer in time) or refuses the key.
 */
export async function discoverAccess(exchange: Exchange, search: (query: string) => RawRequest): Promise<Discovered> {
  const seen = { projects: new Set<string>(), billingAccounts: new Set<string>(), complete: true };
  const words: string[] = [];
  for (const type of ["project", "billingAccount"]) {
    const answer = await exchange("searchResources", search(`type:${type}`));
    if (answer.status === 0)
      throw new Error(`${answer.text.replace(/^no answer: /, "no answer to a search: ")}; nothing was checked`);
    // Search answers no 404: every request of the run would get it, so the URL is not the interface's root.
    if (answer.status === 404)
      throw new Error(
        `the backend answered 404 to a search (GET /v1/resources/search), which the operation never answers: is the base URL the interface's root, with its path prefix if any? Nothing was checked`,
      );
    if (answer.status === 401)
      throw new Error(`the backend refused the API key (401 to a search): ${answer.text.slice(0, 200)}`);
    const found = (answer.json as { results?: { resourceName?: string }[] } | undefined)?.results ?? [];
    if (answer.status !== 200 || found.length >= maxSearchResults) seen.complete = false;
    for (const r of found) {
      const [collection, id = ""] = String(r.resourceName).split("/");
      (collection === "billingAccounts" ? seen.billingAccounts : seen.projects).add(id);
      words.push(id);
    }
  }
  if (seen.complete && seen.projects.size === 0 && seen.billingAccounts.size === 0) {
    return {
      access: undefined,
      words,
      note: "the key sees no project and no billing account",
      warning:
        "the key sees no project and no billing account (its type:project and type:billingAccount searches found nothing), so searches find nothing and search_access, search_matching, search_score and cluster_totals hold the backend to nothing: run with the key of a user who has access",
    };
  }
  const note = seen.complete
    ? `the key sees ${seen.projects.size} projects and ${seen.billingAccounts.size} billing accounts; every search result is held to them`
    : `the key's projects or billing accounts could not all be listed (a search failed or gave ${maxSearchResults} results), so search_access was not checked`;
  return { access: seen, words, note };
}
