/**
 * The stub server's Express app: a stateful stand-in for the compute service that authenticates with keys it
 * issues and holds every request and response to the spec. Building it never listens (see server.ts).
 */

import { loadSpec, type OpenApiDocument } from "@compute-api/contract";
import type { Fixtures } from "@compute-api/fixtures";
import { createLogger, type Logger } from "@compute-api/runtime";
import { createComputeServer, type HandlerInput, type Handlers, type OperationId } from "@compute-api/server";
import type { Express, Request, RequestHandler } from "express";
import { adminRoutes } from "./admin.js";
import { httpAnswers } from "./admin-answers.js";
import { type ExampleOperation, exampleAnswer, exampleOperations } from "./example-answers.js";
import { checkedFaultOptions, documentedStatuses } from "./fault-scenarios.js";
import { createFaults, type FaultOptions, InjectedError } from "./faults.js";
import { type ForwardOptions, startForwarding } from "./forward.js";
import { defaultJournalSize, Journal } from "./journal.js";
import { journalRecorder } from "./journal-http.js";
import { metaRoutes } from "./meta-routes.js";
import { operationFinder } from "./operation-of.js";
import { requestSessions } from "./request-sessions.js";
import { StubSessions } from "./sessions.js";
import type { Store, User } from "./store/store.js";
import { storeOperations } from "./store-operations.js";
import { createStubStore } from "./stub-store.js";

/** Options of the stub app. */
export interface StubOptions {
  /** The data to serve; default the built-in fixtures. Checked against the spec (a FixtureError names each problem). */
  fixtures?: Fixtures;
  /**
   * The fixtures are the stub's to keep and change, and known valid (made by `generateFixtures` or read by
   * `loadFixtures` for this stub, never used again by the caller): they are neither checked against the spec again
   * nor copied, which at a million resources saves seconds of start-up and hundreds of MiB. Default false.
   */
  adoptFixtures?: boolean;
  /** Extra API keys by user id, each registered with the key id `default`: `{ alice: "cak_…" }`. */
  apiKeys?: Record<string, string>;
  /** Origins allowed by CORS; `*` (the default) allows any. */
  corsOrigins?: string[];
  /**
   * Compress answers as production backends do (the `compression` middleware: gzip, deflate or br as the
   * caller's Accept-Encoding allows, bodies of 1 KiB or more), so that client developers can test their decoding.
   */
  compress?: boolean;
  /**
   * Faults to inject: the run's (`faults`, `latencyMs`, `drop`, `rateLimit`, `seed`), the operations' `scenarios`,
   * the `retryAfterSeconds` of injected 429s and 503s, and whether `Prefer` is honoured (default yes).
   */
  faults?: FaultOptions;
  /**
   * The admin API under `/__stub/` (reset, snapshot, restore, load, the request journal, the faults at run time):
   * on by default; `false` turns it off (and the journal with it); `token` makes every admin request send
   * `Authorization: Bearer <token>`. `loopback` (default true; `startServer` sets it from its host) says the stub
   * listens on a loopback address only: then the admin API answers only a Host that names one (DNS rebinding).
   */
  admin?: false | { token?: string | undefined; loopback?: boolean | undefined };
  /** How many answered requests the journal keeps (`GET /__stub/requests`); default 1000, 0 keeps none. */
  journalSize?: number;
  /**
   * Where a reset takes the data it goes back to: a function that makes it afresh at each call (the command reads
   * its `--data` file again, or generates its `--generate` set again). Default: a copy of `fixtures` (or of the
   * built-in data) as given.
   */
  baseline?: () => Fixtures;
  /** Where request lines go; default a silent logger, as the gateway's (the command line logs at info). */
  logger?: Logger;
  /** The bundled spec; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /**
   * Forward what the stub's data does not hold — a key it does not know, a cluster machine it does not have, a path
   * the spec does not describe — to a real backend, through the gateway's checks (forward.ts); `record` records that
   * traffic as `compute-gateway --record` does. Default: the stub answers everything.
   */
  forward?: ForwardOptions;
}

/** A built stub, shaped as a built gateway: the app to serve, and close() for what it holds. */
export interface Stub {
  /** The Express app: `http.createServer(stub.app)`, or `stub.app.listen(port, host)`. */
  app: Express;
  /**
   * Releases what the stub holds besides the app (with `forward`: the backend connections, and the recording, written
   * a last time: rejects when that write failed); the caller closes its own server.
   */
  close(): Promise<void>;
  /** Marks the stub as draining: its /readyz answers 503 from now on. */
  drain(): void;
}

/**
 * Builds the app on @compute-api/server, its operations the store's, and compiles every validator of the spec
 * before it resolves: a spec that does not compile rejects here, never per request. The app is ready to
 * `listen` once the promise resolves.
 */
export async function createApp(options: StubOptions = {}): Promise<Stub> {
  const spec = options.spec ?? loadSpec();
  const store = createStubStore(options, spec);
  const admin = options.admin ?? {};
  const startFaults = checkedFaultOptions(options.faults ?? {}, documentedStatuses(spec));
  // The journal, the stubbed answers and the test sessions only where the admin API can read them (sessions.ts).
  const journalSize = options.journalSize ?? defaultJournalSize;
  const journal = admin === false ? undefined : new Journal(journalSize);
  const stubbed = admin === false ? undefined : httpAnswers(spec);
  const sessions =
    stubbed === undefined
      ? undefined
      : requestSessions(new StubSessions(store, { faults: startFaults, journalSize, answers: stubbed.create }));
  const faults = createFaults(startFaults, {
    changeable: admin !== false,
    rulesOf: (req) => sessions?.known(req)?.faults,
  });
  const token = admin === false ? undefined : admin.token;
  // The journal's recorder is the first of the API's middleware; a session's requests go to its own journal.
  const userOf = (of: Store) => (key: string) => of.authenticate(key)?.id;
  const recorder =
    journal && journal.size > 0
      ? journalRecorder(
          { journal, userOf: userOf(store) },
          {
            adminToken: token,
            operationOf: operationFinder(spec),
            targetOf: (req) => {
              const session = sessions?.known(req);
              return session && { journal: session.journal, userOf: userOf(session.store) };
            },
          },
        )
      : undefined;
  const logger = options.logger ?? createLogger({ level: "silent" });
  const implemented = storeOperations(store);
  const examples = exampleOperations(spec, new Set(Object.keys(implemented)));
  if (examples.length > 0) {
    const names = examples.map((operation) => operation.operationId);
    logger.info({ operations: names }, `answered from the spec's examples: ${names.join(", ")}`);
  }
  // Started before the server: a backend URL or a recording refused rejects here.
  const forwarding = options.forward
    ? await startForwarding(options.forward, {
        storeOf: (req) => sessions?.known(req)?.store ?? store,
        answersOf: (req) => sessions?.known(req)?.answers ?? stubbed?.answers,
        spec,
        logger,
        recorder,
      })
    : undefined;
  const corsOrigins = options.corsOrigins ?? ["*"];
  const guard = { loopback: admin === false || admin.loopback !== false, corsOrigins };
  const server = await createComputeServer<User>({
    spec,
    logger,
    // The user of the request's session carries that session's state to the operation (store/state-view.ts).
    authenticate: (token, request) => {
      const user = (sessions?.known(request)?.store ?? store).authenticate(token);
      if (user) recorder?.noteUser(request, user.id);
      // With --forward, an unknown key on a request a stubbed answer may take: the answer's, or a 401 (forward.ts).
      return user ?? forwarding?.keyForAnswers(request);
    },
    // The operations the MSW handlers call too (store-operations.ts); the others from the spec's examples.
    handlers: {
      ...exampleHandlers(examples, (request) => sessions?.known(request)?.faults.options() ?? faults.settings()),
      ...implemented,
    } as Handlers<User>,
    responses: "enforce",
    cors: corsOrigins,
    compress: options.compress ?? false,
    // The spec's YAML and its HTML reference, beside the server's /healthz and /openapi.json.
    routes: metaRoutes(),
    // The admin API, which no web page may use: before CORS, so that it never carries CORS headers.
    ...(journal && stubbed
      ? {
          adminRoutes: adminRoutes({ store, journal, faults, spec, token, guard, answers: stubbed.answers, sessions }),
        }
      : {}),
    // The request's test session (X-Stub-Session); what its data does not hold is forwarded (--forward) before the
    // faults, the backend's answers being its own; then the run's faults on /v1: latency, dropped connections,
    // injected statuses (--latency, --drop, --faults); then, per key and per request, before any state is touched:
    // the operation's scenario, the rate limit and the caller's `Prefer`.
    beforeValidation: [
      recorder?.middleware,
      sessions?.middleware,
      forwarding?.middleware,
      faults.beforeValidation,
    ].filter((handler): handler is RequestHandler => handler !== undefined),
    // Then a stubbed answer (the request's session's, or the stub's own), in place of the operation.
    beforeHandlers: [
      faults.afterValidation,
      stubbed?.middleware((req) => sessions?.known(req)?.answers),
      forwarding?.unanswered,
    ].filter((handler): handler is RequestHandler => handler !== undefined),
    isExpectedError: (error) => error instanceof InjectedError,
  }).catch(async (error: unknown) => {
    // A server that does not start releases the backend connections and the recording's file.
    await forwarding?.close();
    throw error;
  });
  const close = async () => {
    await server.close();
    await forwarding?.close();
  };
  return { app: server.app, close, drain: () => server.drain() };
}

/**
 * Handlers that answer from the spec's examples, reading `Prefer: example=` unless the request's fault settings
 * ignore `Prefer`.
 */
function exampleHandlers(
  examples: ExampleOperation[],
  settingsOf: (request: Request) => FaultOptions,
): Record<string, unknown> {
  const handlers: Record<string, (input: HandlerInput<OperationId, User>) => unknown> = {};
  for (const operation of examples) {
    handlers[operation.operationId] = ({ request, response }) => {
      const prefer = settingsOf(request).prefer === false ? undefined : request.headers.prefer;
      const { body, applied } = exampleAnswer(operation, prefer);
      if (applied) response.append("Preference-Applied", applied);
      return body;
    };
  }
  return handlers;
}
