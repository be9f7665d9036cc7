/**
 * The checks a backend is held to, each named (Schemathesis' vocabulary where it has a word for it) and each
 * judging one answer: a verdict is `null` when the check held, a sentence when it did not, and absent when the
 * check does not apply to the request. Response checks are the compiled contract's — the same the gateway uses.
 */
import type { Contract, ErrorBody, FieldViolation } from "@compute-api/contract";
import { compareCodePoints, maxSearchResults } from "@compute-api/rules";

import type { Answer } from "./http.js";
import { searchTerms } from "./spec-facts.js";

/** Every check, in the order the report lists them, with what it holds the backend to. */
export const checks = {
  not_a_server_error: "no answer is a 5xx",
  status_code_conformance: "every status is one the operation documents",
  content_type_conformance: "a body is of the media type the spec declares (JSON)",
  response_schema_conformance: "every body is valid against the schema of its status",
  header_conformance: "a documented response header is there when required and valid against its schema",
  error_body_conformance: "every failure is the error body, its code equal to the HTTP status",
  no_leaked_internals: "no failure shows a stack trace or an HTML page",
  negative_data_rejection: "a request with one constraint broken is refused with 400 naming the field",
  ignored_auth: "no Authorization, a malformed one or an unknown key is refused with 401",
  search_query_rules: `a query is refused with 400 naming query exactly when it has no term, more than ${searchTerms.maxTypeTerms} ${searchTerms.typePrefix} term, an unknown type or more than ${searchTerms.maxTerms} other terms`,
  search_access: "a search returns only what the caller's projects and billing accounts hold",
  search_matching: "every search result matches every term of the query, ignoring case",
  search_score: "a result's score is the mean of its terms' best matches (100/80/60 id or name, 50/40/30 other fields)",
  search_order: `search results are best first, then by resourceName; a type: term holds; ${maxSearchResults} at most`,
  search_resource_name: "a result's resourceName is its resource's path",
  cluster_totals: "a cluster's machineCount and totals are those of the machines it lists",
  price_normalization: "a PATCH's priceHr is answered and stored normalized (+.5 is 0.5)",
  partial_update: "a PATCH answers the whole machine, with the fields it carries set and the others as they were",
  unknown_volume_rejection:
    "a PATCH naming a volume that is not the project's is 400 naming volumeIds[i] and changes nothing",
  update_visibility: "search shows a PATCH's change at once, in the machines of its cluster",
  api_key_uniqueness:
    "a new key has the apikeyId as its id; the same apikeyId again is 409 ALREADY_EXISTS, without the key",
  api_key_usable: "a new key authenticates at once, with its user's access",
} as const;

/** The name of a check. */
export type CheckName = keyof typeof checks;

/** The verdicts on one answer: `null` held, a sentence failed; checks that do not apply are absent. */
export type Verdicts = Partial<Record<CheckName, string | null>>;

// A frame of a stack trace — Node's (`at fn (/srv/app.js:12:19)`), Java's, Python's — on a line of its own or after
// an escaped newline inside a JSON string.
const stackTrace =
  /(?:^|\n|\\n)\s*at (?:[^\s()]+ )*\(?(?:file:\/\/)?[^\s()]+\.(?:m?js|cjs|ts):\d+(?::\d+)?\)?|(?:\n|\\n)\s*at [\w.$]+\([\w]+\.java:\d+\)|Traceback \(most recent call last\)|\bException in thread\b/;
const html = /<!doctype html|<html[\s>]|<body[\s>]/i;

/** The checks every answer is held to: status, media type, schema, the error body, nothing leaked. */
export function responseVerdicts(contract: Contract, operationId: string, answer: Answer): Verdicts {
  const contentType = answer.headers["content-type"];
  const violations = contract.checkResponse(operationId, {
    status: answer.status,
    contentType,
    body: Buffer.from(answer.text, "utf8"),
  });
  const about = (test: (v: FieldViolation) => boolean) => {
    const found = violations.filter(test);
    return found.length === 0 ? null : found.map((v) => `${v.field}: ${v.description}`).join("; ");
  };
  const verdicts: Verdicts = {
    not_a_server_error: answer.status >= 500 ? `answered ${answer.status}` : null,
    status_code_conformance: about((v) => v.field === "response.status"),
    content_type_conformance: about((v) => v.field === "response.header.content-type"),
    response_schema_conformance: about(
      (v) => v.field !== "response.status" && v.field !== "response.header.content-type",
    ),
  };
  if (answer.status >= 400) {
    const code = (answer.json as ErrorBody | undefined)?.code;
    verdicts.error_body_conformance =
      code === answer.status
        ? null
        : `a ${answer.status} whose body's code is ${code === undefined ? "missing" : JSON.stringify(code)}`;
    verdicts.no_leaked_internals = stackTrace.test(answer.text)
      ? "the body shows a stack trace"
      : html.test(answer.text)
        ? "the body is an HTML page"
        : null;
  }
  return verdicts;
}

/** The field violations of an error body. */
export function violationsOf(body: unknown): FieldViolation[] {
  return ((body as ErrorBody | undefined)?.details ?? []).flatMap((d) =>
    "fieldViolations" in d ? (d.fieldViolations as FieldViolation[]) : [],
  );
}

/** A request with one constraint broken must be refused with 400 naming the field. */
export function negativeVerdict(answer: Answer, field: string, site: string): string | null {
  if (answer.status !== 400) return `${site}: answered ${answer.status}, not 400`;
  const fields = violationsOf(answer.json).map((v) => v.field);
  return fields.includes(field)
    ? null
    : `${site}: the 400 names ${JSON.stringify(fields)}, not ${JSON.stringify(field)}`;
}

/** A request without a usable key must be refused with 401. */
export function authVerdict(answer: Answer, how: string): string | null {
  return answer.status === 401 ? null : `${how}: answered ${answer.status}, not 401`;
}

/** What the caller may see, learned from its own `type:project` and `type:billingAccount` searches. */
export interface Access {
  projects: ReadonlySet<string>;
  billingAccounts: ReadonlySet<string>;
  /** False when a list was cut at 100 results, so that what is missing from it proves nothing. */
  complete: boolean;
}

type Result = { resourceName?: unknown; resourceType?: unknown; score?: unknown };

/** The search checks of an answered search: every result within the caller's access, and the documented order. */
export function searchVerdicts(
  answer: Answer,
  query: string,
  access: Access | undefined,
  resourceTypes: readonly string[],
): Verdicts {
  const results = (answer.json as { results?: Result[] } | undefined)?.results;
  // No result proves nothing of access or order: such a search is not counted as passing them.
  if (answer.status !== 200 || !Array.isArray(results) || results.length === 0) return {};
  const verdicts: Verdicts = {};
  if (access?.complete) {
    const outside = results
      .map((r) => String(r.resourceName))
      .filter((name) => {
        const [collection, id] = name.split("/");
        return collection === "billingAccounts"
          ? !access.billingAccounts.has(id ?? "")
          : !access.projects.has(id ?? "");
      });
    verdicts.search_access =
      outside.length === 0
        ? null
        : `results outside the caller's projects and billing accounts: ${outside.slice(0, 3).join(", ")}`;
  }
  const problems: string[] = [];
  if (results.length > maxSearchResults) problems.push(`${results.length} results, more than ${maxSearchResults}`);
  for (let i = 1; i < results.length; i++) {
    const [a, b] = [results[i - 1]!, results[i]!];
    const [sa, sb] = [Number(a.score), Number(b.score)];
    const [na, nb] = [String(a.resourceName), String(b.resourceName)];
    if (sa < sb || (sa === sb && compareCodePoints(na, nb) > 0)) {
      problems.push(`result ${i} (${nb}, score ${sb}) comes after ${na} (score ${sa})`);
      break;
    }
  }
  const { typePrefix } = searchTerms;
  const types = query.split(/\s+/u).filter((w) => w.toLowerCase().startsWith(typePrefix));
  const type =
    types.length === 1
      ? resourceTypes.find((t) => t.toLowerCase() === types[0]!.slice(typePrefix.length).toLowerCase())
      : undefined;
  const other = type === undefined ? undefined : results.find((r) => r.resourceType !== type);
  if (other) problems.push(`a ${String(other.resourceType)} result for the term type:${type}`);
  verdicts.search_order = problems.length === 0 ? null : problems.join("; ");
  return verdicts;
}
