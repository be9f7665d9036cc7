/**
 * The MSW handlers' stubbed answers as plain functions, as the admin API's `/__stub/answers` gives them over HTTP: an
 * answer is checked against the spec when it is set and thrown back with what is wrong. answer-request.ts gives a
 * validated request its stubbed answer here.
 */
import type { FieldViolation } from "@compute-api/contract";
import type { RequestView } from "../request-match.js";
import { renderAnswer, type StubbedAnswer, type StubbedAnswerInput, type StubbedAnswers } from "../stubbed-answers.js";

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
}

/** An Error naming each violation, for a function called with what it cannot take. */
export function refusal(what: string, violations: FieldViolation[]): Error {
  return new Error(`${what}: ${violations.map((v) => `${v.field}: ${v.description}`).join("; ")}`);
}

/** The functions on a stub's answers. */
export function answersAndVerification(stubbed: StubbedAnswers): AnswersAndVerification {
  return {
    answer(answer) {
      const set = stubbed.add(answer);
      if (Array.isArray(set)) throw refusal("answer() refused the stubbed answer", set);
      return set.id;
    },
    answers: () => stubbed.list(),
    removeAnswer: (id) => stubbed.remove(id) !== undefined,
    clearAnswers: () => stubbed.clear(),
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
