/**
 * How the stub's MSW handlers answer one request, in the stub's order — its faults, its JSON body, its operation,
 * its key, its checks, the operation on the store, its answer checked — and note it in the journal as the stub's
 * recorder does (journal-http.ts). create-stub-handlers.ts builds the parts these run with, once.
 */
import {
  ApiError,
  bearerToken,
  type Contract,
  internalError,
  parseQueryString,
  searchOf,
  toApiError,
  unauthenticated,
} from "@compute-api/contract";
import { secretBodies } from "@compute-api/rules";
import type { OperationId } from "@compute-api/server";
import { HttpResponse } from "msw";
import { type ExampleOperation, exampleAnswer } from "../example-answers.js";
import type { FaultRules } from "../fault-rules.js";
import type { Journal } from "../journal.js";
import { type AnsweredRequest, journalEntry, queryOf, violationsOf } from "../journal-http.js";
import type { Store } from "../store/store.js";
import type { StoreOperationInput } from "../store-operations.js";
import type { StubbedAnswers } from "../stubbed-answers.js";
import { ownerOfFaulted, stubbedResponse } from "./answers-and-verification.js";
import { readJsonBody } from "./json-body.js";

/**
 * What the handlers answer with, built once: the compiled contract, the store and its operations, the faults, the
 * journal.
 */
export interface HandlerParts {
  contract: Contract;
  store: Store;
  operations: Partial<Record<OperationId, (input: StoreOperationInput<OperationId>) => unknown>>;
  /** The operations the store does not implement, answered from the spec's examples, by operationId. */
  examples: Map<string, ExampleOperation>;
  faults: FaultRules;
  journal: Journal;
  /** The base URL's path, without a trailing slash: the stub's paths are under it. */
  basePath: string;
  /** The stubbed answers (`answer()`). */
  answers: StubbedAnswers;
}

/** A JSON answer, as Express's `res.json` sends it. */
function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

/**
 * The request's headers as node:http hands them over (lower-case names), which the compiled contract reads. The
 * Fetch standard's `forEach` gives lower-case names, but not every implementation does: happy-dom's keeps the case a
 * header was sent in (`Authorization`), so the names are lower-cased here.
 */
function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    const had = headers[lower];
    headers[lower] = had === undefined ? value : `${had}, ${value}`;
  });
  return headers;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** body-parser's test of a body (type-is's hasBody): any Transfer-Encoding, or a Content-Length that is a number, 0 too. */
const parserReadsBody = (headers: Record<string, string>): boolean =>
  headers["transfer-encoding"] !== undefined ||
  (headers["content-length"] !== undefined && !Number.isNaN(Number(headers["content-length"])));

/** Answers a request and notes it in the journal, as the stub's recorder does (journal-http.ts). */
export async function answerAndNote(parts: HandlerParts, request: Request): Promise<Response> {
  const { journal, store, basePath } = parts;
  const started = Date.now();
  const url = new URL(request.url);
  const noted: Partial<AnsweredRequest> = {};
  const response = await answer(parts, request, url, noted);
  if (journal.size > 0) {
    if (noted.fault !== undefined) ownerOfFaulted(parts, request.method, url, noted);
    journal.add(
      journalEntry(
        {
          time: new Date(started).toISOString(),
          durationMs: Date.now() - started,
          method: request.method,
          path: url.pathname.slice(basePath.length),
          search: url.search.slice(1),
          headers: noted.headers ?? headersOf(request),
          body: noted.body,
          // A drop is `HttpResponse.error()`: no status, as the stub's journal has none for a destroyed connection.
          status: response.type === "error" ? null : response.status,
          operationId: noted.operationId,
          userId: noted.userId,
          violations: noted.violations,
          fault: noted.fault,
          answerId: noted.answerId,
        },
        (text) => store.authenticate(text) !== undefined,
      ),
    );
  }
  return response;
}

/**
 * One request, in the stub's order: the run's faults, its JSON body (400, 413, 415), its operation (404, 405), its
 * key (401), its checks (415, 400), its operation's scenario, the rate limit and `Prefer`, a stubbed answer or the
 * operation, its answer checked. What the journal needs is noted in `noted` on the way.
 */
async function answer(
  parts: HandlerParts,
  request: Request,
  url: URL,
  noted: Partial<AnsweredRequest>,
): Promise<Response> {
  const { contract, store, faults, basePath } = parts;
  /** Headers the answer carries whatever it is (`Preference-Applied`). */
  const always: Record<string, string> = {};
  try {
    const path = url.pathname.slice(basePath.length);
    const target = path + url.search;
    const headers = headersOf(request);
    noted.headers = headers;
    if (await beforeValidation(faults, path, noted)) return HttpResponse.error();
    const body = await readBody(request, headers);
    noted.body = body;
    const match = contract.route(request.method, target);
    if (match instanceof ApiError) throw match;
    noted.operationId = match.operation.operationId;
    // The key's form first, then whether it is one of the stub's, before the request's other checks (as the
    // stub's validator calls its security handler).
    const problem = contract.checkRequest(match, { url: target, headers, body });
    if (problem?.status === 401) throw problem;
    const principal = store.authenticate(bearerToken({ headers }) ?? "");
    if (!principal) throw unauthenticated("the API key is not valid");
    noted.userId = principal.id;
    if (problem) throw problem;
    const step = faults.scenario(match.operation.operationId);
    if (step) noted.fault = step.name;
    if (step && !step.error) return HttpResponse.error();
    if (step?.error) throw step.error;
    await afterValidation(faults, headers, match, always, noted);
    const view = { method: request.method, path, query: queryOf(url.search.slice(1)), headers, body };
    const stubbed = stubbedResponse(parts.answers, { ...view, operationId: match.operation.operationId }, always);
    if (stubbed) {
      noted.answerId = stubbed.id;
      return stubbed.response;
    }
    const input = { principal, path: match.params, query: parseQueryString(searchOf(target)), body };
    return run(parts, match.operation.operationId, input as StoreOperationInput<OperationId>, headers, always);
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status === 400) noted.violations = violationsOf(apiError.toBody());
    return jsonResponse(apiError.status, apiError.toBody(), { ...always, ...apiError.headers });
  }
}

/**
 * The run's faults, as the stub's `beforeValidation`: before the body is read and the route found. True when the
 * request is dropped; a fault with an answer throws it.
 */
async function beforeValidation(faults: FaultRules, path: string, noted: Partial<AnsweredRequest>): Promise<boolean> {
  if (!faults.appliesTo(path)) return false;
  const delay = faults.latency();
  if (delay !== undefined) await sleep(delay);
  const fault = faults.runFault();
  if (fault) noted.fault = fault.name;
  if (fault?.error) throw fault.error;
  return fault !== undefined;
}

/** The request's JSON body (undefined: none), read as the stub's body-parser reads it. */
async function readBody(request: Request, headers: Record<string, string>): Promise<unknown> {
  // A Fetch request does not always show its framing (a browser keeps Content-Length to itself).
  const framed = headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined;
  const body = await readJsonBody(request, framed ? parserReadsBody(headers) : request.body !== null);
  if (!framed && request.body !== null) headers["content-length"] = String(body.sentBytes);
  return body.value;
}

/**
 * The rate limit and `Prefer`, as the stub's `afterValidation`: once the key is known and the request valid. What it
 * refuses or injects it throws; the preferences it applied go into `always`.
 */
async function afterValidation(
  faults: FaultRules,
  headers: Record<string, string>,
  match: Exclude<ReturnType<Contract["route"]>, ApiError>,
  always: Record<string, string>,
  noted: Partial<AnsweredRequest>,
): Promise<void> {
  const limited = faults.rateLimit(bearerToken({ headers }));
  if (limited) {
    noted.fault = "rate-limit";
    throw limited;
  }
  const prefer = faults.prefer(headers.prefer, () => [...match.operation.statuses]);
  if (prefer?.refused) throw prefer.refused;
  if (prefer?.applied) always["preference-applied"] = prefer.applied;
  if (prefer?.delayMs !== undefined) await sleep(prefer.delayMs);
  if (prefer?.injected) {
    noted.fault = `prefer ${prefer.injected.status}`;
    throw prefer.injected;
  }
}

/**
 * The operation on the store, or its answer from the spec's examples, checked against the spec (a 500 when it does
 * not conform).
 */
function run(
  { contract, operations, examples, faults }: HandlerParts,
  operationId: string,
  input: StoreOperationInput<OperationId>,
  headers: Record<string, string>,
  always: Record<string, string>,
): Response {
  const example = examples.get(operationId);
  let status = 200;
  let result: unknown;
  if (example) {
    const answer = exampleAnswer(example, faults.options().prefer === false ? undefined : headers.prefer);
    if (answer.applied)
      always["preference-applied"] = [always["preference-applied"], answer.applied].filter(Boolean).join(", ");
    status = example.status;
    result = answer.body;
  } else {
    result = operations[operationId as OperationId]?.(input);
  }
  const violations = contract.checkResponseBody(operationId, status, result);
  if (violations.length > 0) throw internalError(violations);
  if (example && !example.hasBody) return new Response(null, { status, headers: always });
  return jsonResponse(status, result, {
    ...always,
    ...(secretBodies.has(operationId) ? { "cache-control": "no-store" } : {}),
  });
}
