/**
 * The helper's stubbed answers and verification (testing.ts): each a call of the admin API — `/__stub/answers`, and
 * `POST /__stub/requests/find`, whose near misses make the report `expectRequests` throws — so that they behave as
 * the stub does for any other client.
 */
import type { JournalEntry } from "./journal.js";
import { countedRequests, type FoundRequests, type RequestFilter } from "./request-verify.js";
import type { StubbedAnswer, StubbedAnswerInput } from "./stubbed-answers.js";

export type { RequestMatch } from "./request-match.js";
export type { FoundRequests, NearMiss, RequestFilter } from "./request-verify.js";
export type { AnswerParts, StubbedAnswer, StubbedAnswerInput } from "./stubbed-answers.js";

/** A call of the admin API: its method, path under `/__stub` and JSON body; rejects with the error body. */
export type AdminCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** Stubbed answers and verification, as the helper's functions. */
export interface AnswersOverHttp {
  /**
   * Sets a stubbed answer, checked against the spec (it rejects with the 400 naming what is wrong): `{ request: {
   * operationId, path?, query?, headers?, body? }, answer: { status, headers?, body? }, priority?, invalid? }`.
   * Resolves to its id, which the journal's entries of the requests it answers carry as `answerId`.
   */
  answer(answer: StubbedAnswerInput): Promise<string>;
  /** The stubbed answers, in the order they are tried. */
  answers(): Promise<StubbedAnswer[]>;
  /** Removes a stubbed answer by id (rejects with the 404 when there is none). */
  removeAnswer(id: string): Promise<void>;
  /** Removes every stubbed answer. */
  clearAnswers(): Promise<void>;
  /**
   * The requests the stub answered, oldest first, that pass the filter: `method`, `path` (`*` for any characters),
   * `operationId`, `status`, `since`, `limit`, `query`, `headers`, `body` (partial). An unknown filter rejects.
   */
  requests(filter?: RequestFilter): Promise<JournalEntry[]>;
  /**
   * The requests that match, when there are exactly `count`; otherwise rejects with the closest requests and how
   * each differs (WireMock's near misses).
   */
  expectRequests(filter: RequestFilter, count: number): Promise<JournalEntry[]>;
}

/** The functions over a stub's admin API. */
export function answersOverHttp(admin: AdminCall): AnswersOverHttp {
  const find = (filter: RequestFilter = {}) => admin<FoundRequests>("POST", "/requests/find", filter);
  return {
    answer: async (answer) => (await admin<StubbedAnswer>("POST", "/answers", answer)).id,
    answers: async () => (await admin<{ answers: StubbedAnswer[] }>("GET", "/answers")).answers,
    removeAnswer: async (id) => {
      await admin("DELETE", `/answers/${encodeURIComponent(id)}`);
    },
    clearAnswers: async () => {
      await admin("DELETE", "/answers");
    },
    requests: async (filter) => (await find(filter)).requests,
    expectRequests: async (filter, count) => countedRequests(filter, count, await find(filter)),
  };
}
