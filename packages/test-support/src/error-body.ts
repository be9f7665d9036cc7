/**
 * The one check of an error answer: the spec's ErrorBody, as JSON, whose `code` is the HTTP status, never HTML nor
 * a stack trace. As an assertion on a fetch Response, or as the list of its problems for suites that report many.
 * @see openapi/components/schemas/ErrorBody.yaml
 */
import { createSchemaValidator, loadSpec, type SchemaValidator } from "@compute-api/contract";
import { expect } from "vitest";

/** What the tests read of an error body. */
export interface ErrorBodyLike {
  code: number;
  message: string;
  details?: {
    "@type": string;
    reason?: string;
    metadata?: Record<string, string>;
    fieldViolations?: { field: string; description: string; reason?: string }[];
  }[];
}

/** An answer as a suite received it: status, headers, the body's text and, when it parsed, its JSON. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

let validator: SchemaValidator | undefined;

/** The ways `body` breaks the spec's ErrorBody schema; empty when it is a valid error body. */
export function errorBodyErrors(body: unknown) {
  validator ??= createSchemaValidator(loadSpec());
  return validator.validate("#/components/schemas/ErrorBody", body);
}

/** Problems with an answer that should be an error with one of the statuses: empty when it is right. */
export function errorBodyProblems(answer: ErrorAnswer, statuses: readonly number[]): string[] {
  const problems: string[] = [];
  if (!statuses.includes(answer.status)) problems.push(`status ${answer.status}, expected ${statuses.join(" or ")}`);
  if (!/^application\/json/.test(String(answer.headers["content-type"] ?? "")))
    problems.push(`content-type ${String(answer.headers["content-type"])}`);
  if (/<html|<body/i.test(answer.text)) problems.push("HTML in the body");
  const errors = errorBodyErrors(answer.json);
  if (errors.length > 0)
    problems.push(`not an ErrorBody: ${errors.map((e) => `${e.instancePath} ${e.message}`).join("; ")}`);
  if ((answer.json as ErrorBodyLike | undefined)?.code !== answer.status) problems.push("code is not the HTTP status");
  return problems;
}

/** A stack frame or a source file's path: what a failure must never show its client. */
const stackTrace = /at \S+ \(|\.ts:\d+|node_modules/i;

/**
 * Asserts that `res` is an error answer with `status`: JSON, a valid ErrorBody whose code is the status, no HTML,
 * no stack trace. Returns the body.
 */
export async function expectErrorBody(res: Response, status: number): Promise<ErrorBodyLike> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const answer = {
    status: res.status,
    headers: { "content-type": res.headers.get("content-type") ?? undefined },
    text,
    json,
  };
  const problems = errorBodyProblems(answer, [status]);
  if (stackTrace.test(text)) problems.push("a stack trace or a source path in the body");
  expect(problems, `${res.status} ${text.slice(0, 600)}`).toEqual([]);
  return json as ErrorBodyLike;
}
