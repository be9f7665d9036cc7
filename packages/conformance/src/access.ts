/**
 * What the run's key may see, learned before the run from its own searches of `type:project` and
 * `type:billingAccount` (read-only): the access search_access holds every result to, and the ids found, which
 * the valid searches use as words so that they find something.
 */
import type { Access } from "./checks.js";
import type { RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";

/** What the key sees, the words to search for, and a note for the report. */
export interface Discovered {
  access: Access;
  words: string[];
  note: string;
}

/** Searches the key's projects and billing accounts; throws when the backend refuses the key. */
export async function discoverAccess(exchange: Exchange, search: (query: string) => RawRequest): Promise<Discovered> {
  const seen = { projects: new Set<string>(), billingAccounts: new Set<string>(), complete: true };
  const words: string[] = [];
  for (const type of ["project", "billingAccount"]) {
    const answer = await exchange("searchResources", search(`type:${type}`));
    if (answer.status === 401)
      throw new Error(`the backend refused the API key (401 to a search): ${answer.text.slice(0, 200)}`);
    const found = (answer.json as { results?: { resourceName?: string }[] } | undefined)?.results ?? [];
    if (answer.status !== 200 || found.length >= 100) seen.complete = false;
    for (const r of found) {
      const [collection, id = ""] = String(r.resourceName).split("/");
      (collection === "billingAccounts" ? seen.billingAccounts : seen.projects).add(id);
      words.push(id);
    }
  }
  const note = seen.complete
    ? `the key sees ${seen.projects.size} projects and ${seen.billingAccounts.size} billing accounts; every search result is held to them`
    : "the key's projects or billing accounts could not all be listed (a search failed or gave 100 results), so search_access was not checked";
  return { access: seen, words, note };
}
