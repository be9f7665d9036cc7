/**
 * The stub as MSW request handlers: the same store, the same operations (store-operations.ts), and the same request
 * and response validation — the compiled contract of @compute-api/contract, which holds the gateway to the spec and
 * which a differential test keeps answering as the stub's express-openapi-validator does — without a server, in a
 * unit test (`setupServer`) or in a browser (`setupWorker`). Nothing here loads Express or a Node built-in.
 */
import {
  ApiError,
  bearerToken,
  compileContract,
  internalError,
  loadSpec,
  type OpenApiDocument,
  parseQueryString,
  searchOf,
  toApiError,
  unauthenticated,
} from "@compute-api/contract";
import { type Fixtures, validFixtures } from "@compute-api/fixtures/data";
import { secretBodies } from "@compute-api/rules";
import type { OperationId } from "@compute-api/server";
import { type HttpHandler, HttpResponse, http } from "msw";
import { createFaultRules, type FaultOptions } from "../fault-rules.js";
import { defaultJournalSize, Journal, type JournalEntry, type JournalFilter } from "../journal.js";
import { type AnsweredRequest, journalEntry, violationsOf } from "../journal-http.js";
import { type StoreOperationInput, storeOperations } from "../store-operations.js";
import { createStubStore } from "../stub-store.js";
import { readJsonBody } from "./json-body.js";

/** Options of the stub's MSW handlers. */
export interface StubHandlersOptions {
  /** Where the handlers answer: the `baseUrl` the client is given, such as `https://compute.example`. */
  baseUrl: string;
  /**
   * The bundled spec. Default: the one of @compute-api/spec, read from disk, which works in Node only; in a browser
   * pass it: `import spec from "@compute-api/spec/openapi.json"`.
   */
  spec?: OpenApiDocument;
  /** The data to serve; default the built-in fixtures. Checked against the spec (a FixtureError names each problem). */
  fixtures?: Fixtures;
  /** API keys by user id, each registered with the key id `default`: `{ alice: "cak_…" }`. */
  apiKeys?: Record<string, string>;
  /** How many answered requests the journal keeps (`requests()`); default 1000, 0 keeps none. */
  journalSize?: number;
  /**
   * The run's faults, as `createApp`'s (`--faults`, `--latency`, `--drop`, `--rate-limit`, `seed`; `prefer: false`
   * ignores `Prefer` headers). A drop answers `HttpResponse.error()`: the client's fetch fails with a network error.
   */
  faults?: FaultOptions;
}

/** The handlers and the state control of a stub without a server. */
export interface StubHandlers {
  /** The handlers: `setupServer(...stub.handlers)` or `setupWorker(...stub.handlers)`. */
  handlers: HttpHandler[];
  /** Back to the data the handlers started with (or last loaded), with the keys of `apiKeys`. */
  reset(): void;
  /** The whole state as a data set, the format `compute-stub --data` reads (keys as SHA-256 only). */
  snapshot(): Fixtures;
  /** Replaces the state with a data set, such as a snapshot; checked against the spec first. */
  restore(data: Fixtures): void;
  /** Replaces the state with a data set (checked) or a function that makes one, and makes it what `reset` goes back to. */
  load(data: Fixtures | (() => Fixtures)): void;
  /**
   * The journal of the requests the handlers answered, oldest first, as the stub's `GET /__stub/requests` gives it:
   * method, path, query, headers and body as sent (every key redacted), status, operationId, user, a 400's violations.
   */
  requests(filter?: JournalFilter): JournalEntry[];
  /** Empties the journal. */
  clearRequests(): void;
  /** The fault settings in force (a copy), what `GET /__stub/faults` shows in the flags' syntax. */
  faultSettings(): FaultOptions;
  /**
   * Replaces the fault settings from the next request on, as `PATCH /__stub/faults` and `DELETE` do: a new `seed`
   * starts its sequence again, the rate limit's buckets start full when the limit changes.
   */
  setFaults(options: FaultOptions): void;
}

/** A JSON answer, as Express's `res.json` sends it. */
function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

/** The request's headers as node:http hands them over (lower-case names), which the compiled contract reads. */
function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** body-parser's test of a body (type-is's hasBody): any Transfer-Encoding, or a Content-Length that is a number, 0 too. */
const parserReadsBody = (headers: Record<string, string>): boolean =>
  headers["transfer-encoding"] !== undefined ||
  (headers["content-length"] !== undefined && !Number.isNaN(Number(headers["content-length"])));

/** Builds the handlers: compiles the contract (every validator, once) and the store. */
export function createStubHandlers(options: StubHandlersOptions): StubHandlers {
  const spec = options.spec ?? loadSpec();
  const contract = compileContract({ spec });
  const store = createStubStore(options, spec);
  const operations = storeOperations(store) as unknown as Record<
    OperationId,
    (input: StoreOperationInput<OperationId>) => unknown
  >;
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  /** Whether a request is for the stub: its origin, and under the base URL's path. */
  const isOurs = (href: string): boolean => {
    const url = new URL(href);
    return url.origin === base.origin && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
  };

  const journal = new Journal(options.journalSize ?? defaultJournalSize);
  const isStubKey = (text: string) => store.authenticate(text) !== undefined;
  const faults = createFaultRules(options.faults ?? {});

  /** Answers a request and notes it in the journal, as the stub's recorder does (journal-http.ts). */
  async function answerAndNote(request: Request): Promise<Response> {
    const started = Date.now();
    const url = new URL(request.url);
    const noted: Partial<AnsweredRequest> = {};
    const response = await answer(request, url, noted);
    if (response.type === "error") return response;
    if (journal.size > 0) {
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
            status: response.status,
            operationId: noted.operationId,
            userId: noted.userId,
            violations: noted.violations,
          },
          isStubKey,
        ),
      );
    }
    return response;
  }

  /**
   * One request, in the stub's order: its JSON body (400, 413, 415), its operation (404, 405), its key (401), its
   * checks (415, 400), the operation, its answer checked. What the journal needs is noted in `noted` on the way.
   */
  async function answer(request: Request, url: URL, noted: Partial<AnsweredRequest>): Promise<Response> {
    /** Headers the answer carries whatever it is (`Preference-Applied`). */
    const always: Record<string, string> = {};
    try {
      const path = url.pathname.slice(basePath.length);
      const target = path + url.search;
      const headers = headersOf(request);
      noted.headers = headers;
      // The run's faults first, as the stub's `beforeValidation`: before the body is read and the route found.
      if (faults.appliesTo(path)) {
        const delay = faults.latency();
        if (delay !== undefined) await sleep(delay);
        const fault = faults.runFault();
        if (fault?.error) throw fault.error;
        if (fault) return HttpResponse.error();
      }
      // A Fetch request does not always show its framing (a browser keeps Content-Length to itself).
      const framed = headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined;
      const body = await readJsonBody(request, framed ? parserReadsBody(headers) : request.body !== null);
      if (!framed && request.body !== null) headers["content-length"] = String(body.sentBytes);
      noted.body = body.value;
      const match = contract.route(request.method, target);
      if (match instanceof ApiError) throw match;
      const { operationId } = match.operation;
      noted.operationId = operationId;
      // The key's form first, then whether it is one of the stub's, before the request's other checks (as the
      // stub's validator calls its security handler).
      const problem = contract.checkRequest(match, { url: target, headers, body: body.value });
      if (problem?.status === 401) throw problem;
      const principal = store.authenticate(bearerToken({ headers }) ?? "");
      if (!principal) throw unauthenticated("the API key is not valid");
      noted.userId = principal.id;
      if (problem) throw problem;
      // The rate limit and `Prefer`, as the stub's `afterValidation`: once the key is known and the request valid.
      const limited = faults.rateLimit(bearerToken({ headers }));
      if (limited) throw limited;
      const prefer = faults.prefer(headers.prefer, () => [...match.operation.statuses]);
      if (prefer?.refused) throw prefer.refused;
      if (prefer?.applied) always["preference-applied"] = prefer.applied;
      if (prefer?.delayMs !== undefined) await sleep(prefer.delayMs);
      if (prefer?.injected) throw prefer.injected;
      const operation = operations[operationId as OperationId];
      const result = operation({
        principal,
        path: match.params,
        query: parseQueryString(searchOf(target)),
        body: body.value,
      } as StoreOperationInput<OperationId>);
      const violations = contract.checkResponseBody(operationId, 200, result);
      if (violations.length > 0) throw internalError(violations);
      return jsonResponse(200, result, {
        ...always,
        ...(secretBodies.has(operationId) ? { "cache-control": "no-store" } : {}),
      });
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status === 400) noted.violations = violationsOf(apiError.toBody());
      return jsonResponse(apiError.status, apiError.toBody(), { ...always, ...apiError.headers });
    }
  }

  return {
    // A predicate, not a path pattern: MSW decodes a pattern's parameters and answers a path that does not decode
    // (`%FF`) with an error of its own, where the stub answers 400 MALFORMED_URI.
    handlers: [
      http.all(
        ({ request }) => isOurs(request.url),
        ({ request }) => answerAndNote(request),
      ),
    ],
    reset: () => store.reset(),
    snapshot: () => store.snapshot(),
    restore: (data) => store.restore(validFixtures(data, spec)),
    load: (data) => store.load(typeof data === "function" ? data : validFixtures(data, spec)),
    requests: (filter) => journal.list(filter),
    clearRequests: () => journal.clear(),
    faultSettings: () => structuredClone(faults.options()),
    setFaults: (changed) => faults.set(changed),
  };
}
