/**
 * The stub as MSW request handlers: the same store, the same operations (store-operations.ts), and the same request
 * and response validation — the compiled contract of @compute-api/contract, which holds the gateway to the spec and
 * which a differential test keeps answering as the stub's express-openapi-validator does — without a server, in a
 * unit test (`setupServer`) or in a browser (`setupWorker`). Nothing here loads Express or a Node built-in. This
 * module builds the handlers' parts once; answer-request.ts answers each request with them.
 */
import { compileContract, loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { type Fixtures, validFixtures } from "@compute-api/fixtures/data";
import type { OperationId } from "@compute-api/server";
import { type HttpHandler, http } from "msw";
import { changedFaults, type FaultSettings } from "../admin-faults.js";
import { exampleOperations } from "../example-answers.js";
import { createFaultRules, type FaultOptions } from "../fault-rules.js";
import { checkedFaultOptions, documentedStatuses } from "../fault-scenarios.js";
import { defaultJournalSize, Journal } from "../journal.js";
import { type StoreOperationInput, storeOperations } from "../store-operations.js";
import { createStubStore } from "../stub-store.js";
import { StubbedAnswers } from "../stubbed-answers.js";
import { answerAndNote, type HandlerParts } from "./answer-request.js";
import { type AnswersAndVerification, answersAndVerification } from "./answers-and-verification.js";

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
   * The run's faults, as `createApp`'s (`--faults`, `--latency`, `--drop`, `--rate-limit`, `seed`, `scenarios`,
   * `retryAfterSeconds`; `prefer: false` ignores `Prefer` headers). A drop answers `HttpResponse.error()`: the
   * client's fetch fails with a network error.
   */
  faults?: FaultOptions;
}

/**
 * The handlers and the state control of a stub without a server; its stubbed answers and the journal's verification
 * (`answer`, `requests`, `expectRequests`, …) are those of answers-and-verification.ts.
 */
export interface StubHandlers extends AnswersAndVerification {
  /** The handlers: `setupServer(...stub.handlers)` or `setupWorker(...stub.handlers)`. */
  handlers: HttpHandler[];
  /** The operations the store does not implement, answered from the spec's examples (as `compute-stub` says at start). */
  answeredFromExamples: string[];
  /** Back to the data the handlers started with (or last loaded), with the keys of `apiKeys`. */
  reset(): void;
  /** The whole state as a data set, the format `compute-stub --data` reads (keys as SHA-256 only). */
  snapshot(): Fixtures;
  /** Replaces the state with a data set, such as a snapshot; checked against the spec first. */
  restore(data: Fixtures): void;
  /** Replaces the state with a data set (checked) or a function that makes one, and makes it what `reset` goes back to. */
  load(data: Fixtures | (() => Fixtures)): void;
  /** Empties the journal. */
  clearRequests(): void;
  /** The fault settings in force (a copy), what `GET /__stub/faults` shows in the flags' syntax. */
  faultSettings(): FaultOptions;
  /**
   * Changes some fault settings from the next request on, as `PATCH /__stub/faults` and the helper's `faults(change)`
   * do, in the same syntax and with the same check (`{ faults: "503=100%", retryAfter: 0 }`; `null` turns one off): a
   * new `seed` starts its sequence again, the rate limit's buckets start full when the limit changes, every scenario
   * starts again. What the admin API refuses with a 400 throws, naming each problem, and changes nothing.
   */
  setFaults(change: Partial<Record<keyof FaultSettings, unknown>>): void;
}

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
  const statuses = documentedStatuses(spec);
  const faults = createFaultRules(checkedFaultOptions(options.faults ?? {}, statuses));
  const examples = new Map(
    exampleOperations(spec, new Set(Object.keys(operations))).map((operation) => [operation.operationId, operation]),
  );
  const answers = new StubbedAnswers(() => contract);
  const parts: HandlerParts = { contract, store, operations, examples, faults, journal, basePath, answers };

  return {
    // A predicate, not a path pattern: MSW decodes a pattern's parameters and answers a path that does not decode
    // (`%FF`) with an error of its own, where the stub answers 400 MALFORMED_URI.
    answeredFromExamples: [...examples.keys()],
    handlers: [
      http.all(
        ({ request }) => isOurs(request.url),
        ({ request }) => answerAndNote(parts, request),
      ),
    ],
    reset: () => store.reset(),
    snapshot: () => store.snapshot(),
    restore: (data) => store.restore(validFixtures(data, spec)),
    load: (data) => store.load(typeof data === "function" ? data : validFixtures(data, spec)),
    ...answersAndVerification(journal, answers),
    clearRequests: () => journal.clear(),
    faultSettings: () => structuredClone(faults.options()),
    setFaults: (change) => faults.set(changedFaults(faults.options(), change, statuses)),
  };
}
