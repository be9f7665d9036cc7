/**
 * Stubbed answers, WireMock's stub mappings held to the spec: a test says "this request gets this answer", matched by
 * operation, path, query, headers and a partial body, with a priority; each is checked against the spec when it is
 * set (stubbed-answer-checks.ts), and answers a request only once the request was authenticated and validated, in
 * place of the operation (the store neither reads nor changes anything). The admin API (`/__stub/answers`, served by
 * admin-answers.ts) and the MSW handlers keep theirs here alike. Nothing here loads Express or a Node built-in.
 */
import type { Contract, FieldViolation } from "@compute-api/contract";
import { matches, type RequestView } from "./request-match.js";
import {
  checkStubbedAnswer,
  contentTypeOf,
  type StubbedAnswer,
  type StubbedAnswerInput,
} from "./stubbed-answer-checks.js";

export type { AnswerParts, StubbedAnswer, StubbedAnswerInput } from "./stubbed-answer-checks.js";

/** The most stubbed answers a stub keeps at once. */
export const maxStubbedAnswers = 1000;

/** An answer as it goes out: its status, headers (a Content-Type always with a body) and body text, if any. */
export interface RenderedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body to send as it is; undefined: none. */
  text: string | undefined;
}

/** The stubbed answers of one stub, checked against its spec when each is set. */
export class StubbedAnswers {
  /** By priority, lowest first, then newest first: the first that matches answers. */
  private readonly answers: StubbedAnswer[] = [];
  private count = 0;

  /** `contract`: the compiled contract, asked for at the first answer set (the command compiles it only then). */
  constructor(private readonly contract: () => Contract) {}

  /** Sets an answer once checked, or gives the violations that refuse it (nothing is set then). */
  add(value: unknown): StubbedAnswer | FieldViolation[] {
    if (this.answers.length >= maxStubbedAnswers)
      return [{ field: "/", description: `the stub keeps at most ${maxStubbedAnswers} stubbed answers: remove some` }];
    const checked = checkStubbedAnswer(this.contract(), value);
    if (Array.isArray(checked)) return checked;
    const answer = { id: `answer-${++this.count}`, ...(checked as Required<StubbedAnswerInput>) } as StubbedAnswer;
    const at = this.answers.findIndex((other) => other.priority >= answer.priority);
    this.answers.splice(at < 0 ? this.answers.length : at, 0, answer);
    return structuredClone(answer);
  }

  /** The answers set, in the order they are tried. */
  list(): StubbedAnswer[] {
    return structuredClone(this.answers);
  }

  /** Removes an answer by id; what it removed, or undefined when there is none of that id. */
  remove(id: string): StubbedAnswer | undefined {
    const at = this.answers.findIndex((answer) => answer.id === id);
    return at < 0 ? undefined : this.answers.splice(at, 1)[0];
  }

  /** Removes every answer; ids go on counting. */
  clear(): void {
    this.answers.length = 0;
  }

  /** The answer a validated request gets, if one matches: the lowest priority, then the newest. */
  answerFor(request: RequestView): StubbedAnswer | undefined {
    if (this.answers.length === 0) return undefined;
    return this.answers.find((answer) => matches(answer.request, request));
  }

  /**
   * Whether an answer may match a request whose body is not read yet: one that matches it in all but the body
   * (forward.ts keeps such a request from the backend, for `answerFor` to decide once the body is read).
   */
  mayAnswer(request: Omit<RequestView, "body">): boolean {
    return this.answers.some(({ request: match }) => matches({ ...match, body: undefined }, request));
  }
}

/** What an answer sends: its body as JSON (or its raw text), with `application/json` unless it says otherwise. */
export function renderAnswer({ answer }: StubbedAnswer): RenderedAnswer {
  const headers: Record<string, string> = { ...answer.headers };
  const text =
    answer.bodyText !== undefined
      ? answer.bodyText
      : answer.body === undefined
        ? undefined
        : JSON.stringify(answer.body);
  if (text !== undefined && contentTypeOf(headers) === undefined)
    headers["content-type"] = "application/json; charset=utf-8";
  return { status: answer.status, headers, text };
}
