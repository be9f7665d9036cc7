/**
 * The stub's stubbed answers over HTTP: the admin API's `/__stub/answers` (set, list, remove, clear) and
 * `POST /__stub/requests/find` (the journal through a request match, with its near misses), and the middleware that
 * gives a validated request its stubbed answer. admin.ts mounts the routes, app.ts the middleware after the request
 * was authenticated and validated (and after the rate limit and `Prefer`).
 */
import {
  type Contract,
  compileContract,
  invalidRequest,
  notFound,
  type OpenApiDocument,
  searchOf,
} from "@compute-api/contract";
import type { RequestRecord } from "@compute-api/runtime";
import type { Request, RequestHandler, Response } from "express";
import type { Journal } from "./journal.js";
import { queryOf } from "./journal-http.js";
import { findRequests, requestFilterOf } from "./request-verify.js";
import { renderAnswer, StubbedAnswers } from "./stubbed-answers.js";

/** An admin endpoint's handlers by method. */
type Endpoint = Partial<Record<string, (req: Request, res: Response) => unknown>>;

/** The JSON body an admin request must carry. */
type RequiredBody = (req: Request, res: Response) => Promise<unknown>;

/** The stubbed answers of a stub over HTTP: what the admin API changes and what answers requests. */
export interface HttpAnswers {
  /** The stub's own answers. */
  answers: StubbedAnswers;
  /** A new, empty set of answers checked against the same spec: a test session's. */
  create(): StubbedAnswers;
  /**
   * Gives a validated request its stubbed answer, if one of the answers `answersOf` picks for it (its session's; by
   * default the stub's own) matches; otherwise the operation answers.
   */
  middleware(answersOf?: (req: Request) => StubbedAnswers | undefined): RequestHandler;
}

/** The stubbed answers of a stub; its spec is compiled into a contract at the first answer set, not at start-up. */
export function httpAnswers(spec: OpenApiDocument): HttpAnswers {
  let contract: Contract | undefined;
  const create = () =>
    new StubbedAnswers(() => {
      contract ??= compileContract({ spec });
      return contract;
    });
  const answers = create();
  return { answers, create, middleware: (answersOf) => answerMiddleware((req) => answersOf?.(req) ?? answers) };
}

/** The locals of a response the stub keeps: the request's log record, and the id of the stubbed answer it got. */
type Locals = { record?: RequestRecord; answerId?: string };

/** The middleware: the first stubbed answer that matches, sent as it was set. */
function answerMiddleware(answersOf: (req: Request) => StubbedAnswers): RequestHandler {
  return (req, res, next) => {
    const operationId = (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
    const stubbed = answersOf(req).answerFor({
      method: req.method,
      path: req.path,
      query: queryOf(searchOf(req.originalUrl)),
      headers: req.headers,
      body: req.body,
      operationId,
    });
    if (!stubbed) return next();
    const locals = res.locals as Locals;
    locals.answerId = stubbed.id;
    if (locals.record) locals.record.fields.answer = stubbed.id;
    const { status, headers, text } = renderAnswer(stubbed);
    res.status(status).set(headers);
    if (text === undefined) res.end();
    // A valid JSON answer goes through the validator's check of every answer; an invalid one must not be stopped there.
    else if (!stubbed.invalid && stubbed.answer.body !== undefined) res.json(stubbed.answer.body);
    else res.send(text);
  };
}

/** `/__stub/answers` and `/__stub/answers/<id>`, as admin.ts's routes; `/answers/*` stands for any id. */
export function answerRoutes(answers: StubbedAnswers, body: RequiredBody): [string, Endpoint][] {
  const list = () => ({ answers: answers.list() });
  return [
    [
      "/answers",
      {
        GET: (_req, res) => res.json(list()),
        POST: async (req, res) => {
          const set = answers.add(await body(req, res));
          if (Array.isArray(set)) throw invalidRequest(set);
          res.status(201).json(set);
        },
        DELETE: (_req, res) => {
          answers.clear();
          res.json(list());
        },
      },
    ],
    [
      "/answers/*",
      {
        DELETE: (req, res) => {
          const id = req.path.replace(/\/+$/, "").split("/").pop() ?? "";
          const removed = answers.remove(id);
          if (!removed) throw notFound(`no stubbed answer ${id.slice(0, 100)}; GET /__stub/answers lists them`);
          res.json(removed);
        },
      },
    ],
  ];
}

/** `POST /__stub/requests/find`: the journal's entries that match a filter, and the near misses. */
export function findRoute(journal: Journal, body: RequiredBody): [string, Endpoint] {
  return [
    "/requests/find",
    {
      POST: async (req, res) => {
        const filter = requestFilterOf(await body(req, res));
        if (Array.isArray(filter)) throw invalidRequest(filter);
        res.json(findRequests(journal, filter));
      },
    },
  ];
}
