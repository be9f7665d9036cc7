/**
 * The MSW handlers' stubbed answers and verification as plain functions, as the admin API's `/__stub/answers` and
 * `POST /__stub/requests/find` give them over HTTP: an answer is checked against the spec when it is set and thrown
 * back with what is wrong; a filter with a name the journal does not know is refused (a misspelt filter would match
 * every request, and an assertion of no calls would pass); a count that is not met throws the near-miss report.
 * answer-request.ts gives a validated request its stubbed answer here, and names a faulted request's operation and user.
 */
import { ApiError, bearerToken, type FieldViolation } from "@compute-api/contract";
import type { Journal, JournalEntry } from "../journal.js";
import type { AnsweredRequest } from "../journal-http.js";
import type { RequestView } from "../request-match.js";
import { countedRequests, findRequests, type RequestFilter, requestFilterOf } from "../request-verify.js";
import { renderAnswer, type StubbedAnswer, type StubbedAnswerInput, type StubbedAnswers } from "../stubbed-answers.js";
import type { HandlerParts } from "./answer-request.js";

/** The functions, as `createStubHandlers` returns them. */
export interface AnswersAndVerification {
  /**
   * Sets a stubbed answer (`{ request: { operationId, path?, query?, headers?, body? }, answer: { status, headers?,
   * body? }, priority?, invalid? }`), checked against the spec (an Error names what is wrong); returns its id. A
   * request gets it once authenticated and validated, in place of the operation, and the journal names it.
   */
  answer(answer: StubbedAnswerInput): string;
  /** The stubbed answers, in the order they are tried (lowest priority first, then newest). */
  answers(): StubbedAnswer[];
  /** Removes a stubbed answer; false when there is none of that id. */
  removeAnswer(id: string): boolean;
  /** Removes every stubbed answer. */
  clearAnswers(): void;
  /**
   * The journal of the requests the handlers answered, oldest first, as the stub's `GET /__stub/requests` gives it:
   * method, path, query, headers and body as sent (every key redacted), status, operationId, user, a 400's
   * violations, a fault, a stubbed answer's id. Filters: `method`, `path` (`*` for any characters), `operationId`,
   * `status`, `since`, `limit`, `query`, `headers`, `body` (partial); an unknown one throws.
   */
  requests(filter?: RequestFilter): JournalEntry[];
  /** The requests that match, when there are exactly `count`; otherwise throws the closest ones and how they differ. */
  expectRequests(filter: RequestFilter, count: number): JournalEntry[];
}

/** An Error naming each violation, for a function called with what it cannot take. */
export function refusal(what: string, violations: FieldViolation[]): Error {
  return new Error(`${what}: ${violations.map((v) => `${v.field}: ${v.description}`).join("; ")}`);
}

/** A filter as given, or the Error that refuses it. */
function filterOf(what: string, filter: unknown): RequestFilter {
  const read = requestFilterOf(filter);
  if (Array.isArray(read)) throw refusal(what, read);
  return read;
}

/** The functions on a journal and a stub's answers. */
export function answersAndVerification(journal: Journal, stubbed: StubbedAnswers): AnswersAndVerification {
  return {
    answer(answer) {
      const set = stubbed.add(answer);
      if (Array.isArray(set)) throw refusal("answer() refused the stubbed answer", set);
      return set.id;
    },
    answers: () => stubbed.list(),
    removeAnswer: (id) => stubbed.remove(id) !== undefined,
    clearAnswers: () => stubbed.clear(),
    requests: (filter) => findRequests(journal, filterOf("requests()", filter)).requests,
    expectRequests(filter, count) {
      const read = filterOf("expectRequests()", filter);
      return countedRequests(read, count, findRequests(journal, read));
    },
  };
}

/** The stubbed answer of a validated request, if one matches, as a Response with the headers it carries anyway. */
export function stubbedResponse(
  answers: StubbedAnswers,
  request: RequestView,
  always: Record<string, string>,
): { id: string; response: Response } | undefined {
  const stubbed = answers.answerFor(request);
  if (!stubbed) return undefined;
  const { status, headers, text } = renderAnswer(stubbed);
  // A Response of these statuses may have no body (the stub's Express drops it likewise).
  const bodiless = status === 204 || status === 205 || status === 304;
  return {
    id: stubbed.id,
    response: new Response(bodiless ? null : (text ?? null), { status, headers: { ...always, ...headers } }),
  };
}

/** The operation and user of a request a fault answered before it was routed, as the stub's journal names them. */
export function ownerOfFaulted(
  { contract, store, basePath }: HandlerParts,
  method: string,
  url: URL,
  noted: Partial<AnsweredRequest>,
) {
  if (noted.operationId === undefined) {
    const match = contract.route(method, url.pathname.slice(basePath.length) + url.search);
    if (!(match instanceof ApiError)) noted.operationId = match.operation.operationId;
  }
  const token = noted.userId === undefined ? bearerToken({ headers: noted.headers ?? {} }) : undefined;
  if (token !== undefined) noted.userId = store.authenticate(token)?.id;
}
