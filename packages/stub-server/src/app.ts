/**
 * The stub server's Express app: a stateful stand-in for the compute service that authenticates with keys it
 * issues and holds every request and response to the spec. Building it never listens (see server.ts).
 */

import { loadSpec, type OpenApiDocument, parseQueryString, unauthenticated } from "@compute-api/contract";
import { corsHandler, createLogger, type Logger, requestLogger } from "@compute-api/contract/http";
import compression from "compression";
import express, { type Express, type Request, type RequestHandler } from "express";
import { createContractValidator } from "./contract-validator.js";
import { errorHandler, notFound } from "./error-handlers.js";
import { createFaults, type FaultOptions, InjectedError } from "./faults.js";
import { builtinFixtures } from "./fixtures/builtin.js";
import { validFixtures } from "./fixtures/load-fixtures.js";
import { metaRoutes } from "./meta-routes.js";
import { apiKeyRoutes } from "./routes/api-keys.js";
import { Callers } from "./routes/callers.js";
import { clusterMachineRoutes } from "./routes/cluster-machines.js";
import { searchRoutes } from "./routes/search.js";
import { Store } from "./store/store.js";
import type { Fixtures } from "./types.js";

/** Options of the stub app. */
export interface StubOptions {
  /** The data to serve; default the built-in fixtures. Checked against the spec (a FixtureError names each problem). */
  fixtures?: Fixtures;
  /** Extra API keys by user id, each registered with the key id `default`: `{ alice: "cak_…" }`. */
  apiKeys?: Record<string, string>;
  /** Origins allowed by CORS; `*` (the default) allows any. */
  corsOrigins?: string[];
  /**
   * Compress answers as production backends do (the `compression` middleware: gzip, deflate or br as the
   * caller's Accept-Encoding allows, bodies of 1 KiB or more), so that client developers can test their decoding.
   */
  compress?: boolean;
  /** Faults to inject: the run's (`faults`, `latencyMs`, `drop`, `rateLimit`, `seed`) and whether `Prefer` is honoured (default yes). */
  faults?: FaultOptions;
  /** Where request lines go; default a silent logger, as the gateway's (the command line logs at info). */
  logger?: Logger;
  /** The bundled spec; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
}

/** The key id under which `apiKeys` are registered. */
export const defaultKeyId = "default";

/** A built stub, shaped as a built gateway: the app to serve, and close() for what it holds. */
export interface Stub {
  /** The Express app: `http.createServer(stub.app)`, or `stub.app.listen(port, host)`. */
  app: Express;
  /** Releases what the stub holds besides the app (today nothing); the caller closes its own server. */
  close(): Promise<void>;
}

/**
 * Builds the app and compiles every validator of the spec before it resolves: a spec that does not compile
 * rejects here, never per request. The app is ready to `listen` once the promise resolves.
 */
export async function createApp(options: StubOptions = {}): Promise<Stub> {
  const spec = options.spec ?? loadSpec();
  const logger = options.logger ?? createLogger({ level: "silent" });
  const store = new Store(options.fixtures ? validFixtures(options.fixtures, spec) : builtinFixtures());
  for (const [userId, key] of Object.entries(options.apiKeys ?? {})) {
    if (!store.addApiKey(userId, defaultKeyId, key)) throw new Error(`apiKeys: no user '${userId}' in the data`);
  }

  const callers = new Callers();
  // Until warm-up is over only its own example requests (token "warm-up") pass through the validator.
  let warmingUp = true;
  const validator = createContractValidator({
    spec,
    responses: "enforce",
    authenticate: (token, req) => {
      if (warmingUp) return true;
      const user = store.authenticate(token);
      if (!user) throw unauthenticated("the API key is not valid");
      callers.set(req, user);
      return true;
    },
  });

  const log = requestLogger(
    logger,
    (req) => (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId,
  );
  const faults = createFaults(options.faults ?? {});
  const app = express();
  app.disable("x-powered-by");
  // Every query pair, as the compiled contract reads them: Express's default parser stops at 1,000 (the validator checks it is set).
  app.set("query parser", parseQueryString);
  // 1. One log line per request, first so that it times and sees every answer; its record stays in res.locals.
  app.use(((req, res, next) => {
    res.locals.record = log(req, res);
    next();
  }) as RequestHandler);
  // 2. With `compress`, answers are compressed as the caller's Accept-Encoding allows.
  if (options.compress) app.use(compression());
  // 3. CORS headers on every answer; preflight requests end here, before validation.
  app.use(corsHandler(options.corsOrigins ?? ["*"], spec) as RequestHandler);
  // 4. Routes outside the spec: health, spec, docs.
  app.use(metaRoutes(spec));
  // 5. The run's faults on /v1: latency, dropped connections, injected statuses (--latency, --drop, --faults).
  if (faults.beforeValidation) app.use(faults.beforeValidation);
  // 6. JSON body (1 MiB), then security, request and response validation against the spec.
  app.use(validator.middleware);
  // 7. Per key and per request, before any state is touched: the rate limit and the caller's `Prefer`.
  if (faults.afterValidation) app.use(faults.afterValidation);
  // 8. The operations, one router per tag.
  app.use(clusterMachineRoutes(store, callers), apiKeyRoutes(store, callers), searchRoutes(store, callers));
  // 9. Anything the validator let through that no route serves.
  app.use(notFound);
  // 10. Every failure as the spec's error body.
  app.use(errorHandler(logger, (error) => error instanceof InjectedError));

  await validator.warmUp();
  warmingUp = false;
  return { app, close: async () => {} };
}
