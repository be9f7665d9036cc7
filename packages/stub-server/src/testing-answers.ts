/**
 * The helper's stubbed answers (testing.ts): each a call of the admin API's `/__stub/answers`, so that they behave as
 * the stub does for any other client.
 */
import type { StubbedAnswer, StubbedAnswerInput } from "./stubbed-answers.js";

export type { RequestMatch } from "./request-match.js";
export type { AnswerParts, StubbedAnswer, StubbedAnswerInput } from "./stubbed-answers.js";

/** A call of the admin API: its method, path under `/__stub` and JSON body; rejects with the error body. */
export type AdminCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** Stubbed answers, as the helper's functions. */
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
}

/** The functions over a stub's admin API. */
export function answersOverHttp(admin: AdminCall): AnswersOverHttp {
  return {
    answer: async (answer) => (await admin<StubbedAnswer>("POST", "/answers", answer)).id,
    answers: async () => (await admin<{ answers: StubbedAnswer[] }>("GET", "/answers")).answers,
    removeAnswer: async (id) => {
      await admin("DELETE", `/answers/${encodeURIComponent(id)}`);
    },
    clearAnswers: async () => {
      await admin("DELETE", "/answers");
    },
  };
}
