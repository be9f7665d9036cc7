/**
 * A compute server: an Express app where the spec decides routing, authentication and validation, and the
 * implementer writes the operations. Requests and responses are held to the spec by express-openapi-validator
 * (contract-validator.ts), warmed up before the promise resolves; every failure is the interface's error body.
 */

import { loadSpec, type OpenApiDocument, parseQueryString, specOperations } from "@compute-api/contract";
import { corsHandler, createLogger, type Logger, requestLogger } from "@compute-api/runtime";
import compression from "compression";
import express, { type Express, type RequestHandler, Router } from "express";
import { type Authenticate, authenticator } from "./authentication.js";
import { createContractValidator, type ResponseMode } from "./contract-validator.js";
import { errorHandler, notFound } from "./error-handlers.js";
import { metaRoutes } from "./meta-routes.js";
import { operationRoutes } from "./operation-routes.js";
import { Principals } from "./principals.js";
import { defaultHandlerTimeoutMs, requestDeadline } from "./request-deadline.js";
import { requestSpans } from "./tracing.js";
import type { Handlers } from "./types.js";

export type { Authenticate } from "./authentication.js";

/** Options of a compute server. */
export interface ComputeServerOptions<Principal> {
  /**
   * Who a bearer token acts for: an object, or `undefined`/`null`/`false` to answer 401. Called only for a
   * well-formed `Authorization: Bearer …`. An `ApiError` it throws is answered as it is; anything else it throws
   * (its database is down) is answered 503 with `Retry-After`, the cause logged, never a 401.
   */
  authenticate: Authenticate<Principal>;
  /** A handler for every operation of the spec, by operationId. */
  handlers: Handlers<Principal>;
  /**
   * What a response that breaks the spec gets: `enforce` (default) answers 500 instead; `report` sends it, logs
   * it at warn and counts it (`stats.responseViolations`); `off` checks no response.
   */
  responses?: ResponseMode;
  /** Where the request lines and failures go (pino); default silent. */
  logger?: Logger;
  /** Origins CORS allows (`["*"]` for any); default none: no CORS headers, and preflights are not answered. */
  cors?: string[];
  /** Serve the spec at GET /openapi.json; default true. `/healthz` is always served. */
  openapi?: boolean;
  /** Largest request body in bytes; default 1 MiB (answered 413 above). */
  maxBodyBytes?: number;
  /** Compress answers as the caller's Accept-Encoding allows (the `compression` middleware); default off. */
  compress?: boolean;
  /** The bundled spec; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /** Routes of your own outside the spec (such as docs), served before validation. */
  routes?: Router;
  /**
   * Routes of your own outside the spec that no web page may use (an admin API): served before CORS, so that they
   * never carry its headers and CORS answers none of their preflights; a browser then lets no page of another origin
   * read their answers or send them anything but a "simple" request.
   */
  adminRoutes?: Router;
  /** Middleware of your own that runs before validation on every request the server routes. */
  beforeValidation?: RequestHandler[];
  /** Middleware of your own that runs after validation and authentication, before the handler. */
  beforeHandlers?: RequestHandler[];
  /** Errors answered 5xx on purpose (an injected fault), not logged as failures. */
  isExpectedError?: (error: unknown) => boolean;
  /**
   * How long a request may take, from its arrival to its answer, in ms; then it is answered 504 (408, and its
   * connection closed, when its body is still arriving) and its handler's `signal` fires. Default 30 s, under the
   * 60 s idle timeout of the usual load balancers.
   */
  handlerTimeoutMs?: number;
  /**
   * The readiness check of GET /readyz, such as a `SELECT 1` on the database: ready when it resolves to anything
   * but `false`; throwing or `false` answers 503 with `Retry-After`. Default: always ready. `/healthz` checks nothing.
   */
  ready?: (signal: AbortSignal) => unknown;
}

/** A built compute server. */
export interface ComputeServer {
  /** The app to serve: `app.listen(port, host)`, or `listen(server.app, …)` from this package. */
  app: Express;
  /**
   * The same server as a Router, to mount in an app of your own with `app.use(router)`: it serves `/healthz`,
   * `/openapi.json` and every path under the spec's (`/v1/…`), and passes every other request on to your app.
   */
  router: Router;
  /** Counters: responses that broke the spec and were sent anyway (`report`). */
  readonly stats: { readonly responseViolations: number };
  /** Marks the server as draining: /readyz answers 503 from now on (`drainable` of the contract closes connections). */
  drain(): void;
  /** Releases what the server holds besides the app (today nothing); the caller closes its own HTTP server. */
  close(): Promise<void>;
}

/** The longest leading part, up to a `/`, that every path of the spec shares (`/v1/`). */
function apiPrefix(spec: OpenApiDocument): string {
  const paths = specOperations(spec).map((o) => o.path);
  let prefix = paths[0] ?? "/";
  for (const path of paths) while (!path.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf("/") + 1) || "/";
}

/**
 * Builds the server and compiles every validator of the spec before it resolves: a spec that does not compile,
 * or a handler map without a handler for an operation, rejects here, never per request.
 */
export async function createComputeServer<Principal>(options: ComputeServerOptions<Principal>): Promise<ComputeServer> {
  const spec = options.spec ?? loadSpec();
  const logger = options.logger ?? createLogger({ level: "silent" });
  const openapi = options.openapi ?? true;
  const principals = new Principals<Principal>();
  const stats = { responseViolations: 0 };
  let draining = false;
  // Until warm-up is over only its own example requests (token "warm-up") pass through the validator.
  let warmingUp = true;
  const authenticate = authenticator(options.authenticate, principals);
  const validator = createContractValidator({
    spec,
    responses: options.responses ?? "enforce",
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    onResponseViolation: (error, req) => {
      stats.responseViolations++;
      logger.warn(
        { operationId: operationIdOf(req), path: req.path, errors: error.errors?.slice(0, 20) },
        "response does not match the spec",
      );
    },
    authenticate: (token, req) => warmingUp || authenticate(token, req),
  });
  const operations = operationRoutes(spec, options.handlers, principals, logger);
  const log = requestLogger(logger, operationIdOf);
  const prefix = apiPrefix(spec);
  const meta = metaRoutes(spec, { openapi, ready: options.ready, draining: () => draining, logger });
  const spans = requestSpans((req) => ({
    route: routeOf(req) ?? (meta.paths.has(req.path) ? req.path : undefined),
    operationId: operationIdOf(req),
  }));
  const errors = errorHandler(logger, options.isExpectedError);
  const deadline = requestDeadline(options.handlerTimeoutMs ?? defaultHandlerTimeoutMs, (error, req, res) =>
    errors(error, req, res, () => {}),
  );

  /** The whole pipeline; `mounted`: in a host app, which keeps every request that is not the server's. */
  const pipeline = (mounted: boolean): Router => {
    const router = Router();
    if (mounted)
      router.use((req, _res, next) =>
        req.path.startsWith(prefix) || meta.paths.has(req.path) ? next() : next("router"),
      );
    // 0. The request's SERVER span (when tracing is on), the active span of everything after it.
    router.use(spans);
    // 1. One log line per request, first so that it times and sees every answer; its record stays in res.locals.
    // Then its clock: past the handler timeout it is answered 504 (408 while its body arrives), and its signal fires.
    router.use((req, res, next) => {
      res.locals.record = log(req, res);
      next();
    }, deadline);
    if (options.compress) router.use(compression());
    // 2. The implementer's routes that no page may use, then CORS headers on every other answer; preflight requests
    // end here, before validation.
    if (options.adminRoutes) router.use(options.adminRoutes);
    if (options.cors && options.cors.length > 0) router.use(corsHandler(options.cors, spec) as RequestHandler);
    // 3. Routes outside the spec: health and the spec, then the implementer's own.
    router.use(meta.router);
    if (options.routes) router.use(options.routes);
    if (options.beforeValidation?.length) router.use(options.beforeValidation);
    // 4. JSON body (1 MiB), then security, request and response validation against the spec.
    router.use(validator.middleware);
    if (options.beforeHandlers?.length) router.use(options.beforeHandlers);
    // 5. The operations.
    router.use(operations);
    if (mounted) router.use(errors);
    return router;
  };

  const app = express();
  app.disable("x-powered-by");
  // Every query pair, as the compiled contract reads them: Express's default parser stops at 1,000.
  app.set("query parser", parseQueryString);
  app.use(pipeline(false));
  // Anything the validator let through that no route serves, then every failure as the spec's error body.
  app.use(notFound);
  app.use(errors);

  await validator.warmUp();
  warmingUp = false;
  return {
    app,
    router: pipeline(true),
    stats,
    drain: () => {
      draining = true;
    },
    close: async () => {},
  };
}

/** The path template (`/v1/projects/{projectId}`) express-openapi-validator routed a request to. */
function routeOf(req: unknown): string | undefined {
  return (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
}

/** The operation express-openapi-validator routed a request to. */
function operationIdOf(req: unknown): string | undefined {
  return (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
}
