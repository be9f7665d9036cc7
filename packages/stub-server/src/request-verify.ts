/**
 * Verification on the request journal, as WireMock's `verify`: the entries that match a filter (the journal's own
 * filters and a request match: query pairs, headers, a partial body), the near misses — the entries closest to it and
 * how each differs — and the report a count assertion throws when the count is not what was expected. The admin API's
 * `POST /__stub/requests/find`, the helper's `expectRequests` and the MSW handlers' use it alike. Nothing here loads
 * Express or a Node built-in.
 */
import type { FieldViolation } from "@compute-api/contract";
import { type Journal, type JournalEntry, statusTest } from "./journal.js";
import { isRecord, matchDifferences, matchNames, type RequestMatch, readMatch, unknownNames } from "./request-match.js";

/** What `requests(filter)` keeps: the journal's filters and a request match; each absent part keeps every entry. */
export interface RequestFilter extends RequestMatch {
  /** A status (`404`) or a class of them (`"4xx"`). */
  status?: string | number;
  /** Entries after this `seq`, or from this time on (ISO 8601). */
  since?: string | number;
  /** Only the last `limit` of those that pass. */
  limit?: number;
}

/** An entry close to a filter, and how it differs. */
export interface NearMiss {
  entry: JournalEntry;
  differences: string[];
}

/** What a search of the journal finds. */
export interface FoundRequests {
  /** The entries that match, oldest first. */
  requests: JournalEntry[];
  /** The `seq` of the last request journaled. */
  lastSeq: number;
  /** Up to three entries that do not match, the closest first (fewest differences, then newest). */
  nearMisses: NearMiss[];
}

/** The names of a filter. */
export const filterNames = [...matchNames, "status", "since", "limit"] as const;

/** A filter read from JSON (the body of `POST /__stub/requests/find`, the MSW handlers' argument), or its violations. */
export function requestFilterOf(value: unknown, at = ""): RequestFilter | FieldViolation[] {
  if (value === undefined) return {};
  if (!isRecord(value)) return [{ field: at || "/", description: "must be an object of filters" }];
  const violations = unknownNames(value, filterNames, at, "a filter of the journal");
  const filter: RequestFilter = readMatch(value, at, violations);
  const { status, since, limit } = value;
  if (status !== undefined) {
    if ((typeof status === "string" || typeof status === "number") && /^([1-5]\d\d|[1-5]xx)$/i.test(String(status)))
      filter.status = status;
    else violations.push({ field: `${at}status`, description: "must be a status such as 404, or a class such as 4xx" });
  }
  if (since !== undefined) {
    const valid =
      (typeof since === "number" && Number.isSafeInteger(since) && since >= 0) ||
      (typeof since === "string" && (/^\d+$/.test(since) || !Number.isNaN(Date.parse(since))));
    if (valid) filter.since = since as string | number;
    else violations.push({ field: `${at}since`, description: "must be a seq (a whole number) or an ISO 8601 time" });
  }
  if (limit !== undefined) {
    if (typeof limit === "number" && Number.isSafeInteger(limit) && limit >= 0) filter.limit = limit;
    else violations.push({ field: `${at}limit`, description: "must be a whole number" });
  }
  return violations.length > 0 ? violations : filter;
}

/** How an entry's status differs from a filter's (`404` or `4xx`), if it does. */
function statusDifference(status: string | number | undefined, entry: JournalEntry): string[] {
  if (status === undefined) return [];
  const wanted = String(status).toLowerCase();
  return statusTest(wanted)(entry.status)
    ? []
    : [`status: expected ${wanted}, was ${entry.status ?? "none (dropped)"}`];
}

/** How an entry differs from a filter, one line per part. */
function differencesOf(filter: RequestFilter, entry: JournalEntry): string[] {
  return [...matchDifferences(filter, entry), ...statusDifference(filter.status, entry)];
}

/** The entries of a journal that pass a filter, and the near misses among those in its `since` window. */
export function findRequests(journal: Journal, filter: RequestFilter): FoundRequests {
  const since = filter.since === undefined ? {} : { since: String(filter.since) };
  const window = journal.list(since);
  const misses: NearMiss[] = [];
  const requests: JournalEntry[] = [];
  for (const entry of window) {
    const differences = differencesOf(filter, entry);
    if (differences.length === 0) requests.push(entry);
    else misses.push({ entry, differences });
  }
  const limited = filter.limit === undefined ? requests : requests.slice(Math.max(0, requests.length - filter.limit));
  misses.sort((a, b) => a.differences.length - b.differences.length || b.entry.seq - a.entry.seq);
  return { requests: limited, lastSeq: journal.lastSeq, nearMisses: misses.slice(0, 3) };
}

/** An entry in one line: `#3 PATCH /v1/… → 200 (updateClusterMachine)`. */
function entryLine(entry: JournalEntry): string {
  const query = new URLSearchParams(
    Object.entries(entry.query).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((item) => [name, item]),
    ),
  ).toString();
  const status = entry.status === null ? "dropped" : String(entry.status);
  const notes = [entry.operationId, entry.fault && `fault ${entry.fault}`, entry.answerId && `answer ${entry.answerId}`]
    .filter(Boolean)
    .join(", ");
  return `#${entry.seq} ${entry.method} ${entry.path}${query ? `?${query}` : ""} → ${status}${notes ? ` (${notes})` : ""}`;
}

/**
 * The message of a count that is not what was expected: the filter, the count found and the matching entries, then
 * the near misses and how each differs.
 */
export function nearMissReport(filter: RequestFilter, count: number, found: FoundRequests): string {
  const n = found.requests.length;
  const lines = [
    `expected ${count} request${count === 1 ? "" : "s"} matching ${JSON.stringify(filter)}, found ${n}` +
      (n > 0 ? `: ${found.requests.map((entry) => `#${entry.seq}`).join(", ")}` : ""),
  ];
  if (found.nearMisses.length === 0) lines.push("no other request is in the journal");
  else lines.push(n > 0 ? "the closest others:" : "the closest:");
  for (const { entry, differences } of found.nearMisses) {
    lines.push(`  ${entryLine(entry)}`);
    for (const difference of differences.slice(0, 8)) lines.push(`    - ${difference}`);
    if (differences.length > 8) lines.push(`    - and ${differences.length - 8} more`);
  }
  return lines.join("\n");
}

/** The requests found, when there are `count` of them; otherwise throws the near-miss report. */
export function countedRequests(filter: RequestFilter, count: unknown, found: FoundRequests): JournalEntry[] {
  if (!isCount(count)) throw new Error(`expectRequests(): count must be a whole number, not ${String(count)}`);
  if (found.requests.length !== count) throw new Error(nearMissReport(filter, count, found));
  return found.requests;
}

/** Whether a count is one to expect: a whole number, 0 or more. */
export const isCount = (count: unknown): count is number =>
  typeof count === "number" && Number.isSafeInteger(count) && count >= 0;
