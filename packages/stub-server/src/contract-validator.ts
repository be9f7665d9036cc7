/**
 * Request and response validation of the stub with express-openapi-validator: the contract's JSON body parser,
 * then the validator's routing, security check, request and response validation, plus the checks it lacks (a
 * required body that is absent, a body sent to an operation that takes none, undeclared query parameters named
 * as sent). It checks the contract's bounded copy of the spec and reads the query with the contract's parser (the
 * app's "query parser"), as the compiled contract does. The gateway holds traffic to the
 * same spec with `@compute-api/contract`'s compiled contract; both map their errors with the contract's one
 * mapper, and a differential test keeps them answering alike.
 */
import type { Server } from "node:http";
import {
  ApiError,
  bearerToken,
  boundedSchemas,
  deref,
  errorInfoDetail,
  hasRequestBody,
  invalidRequest,
  jsonBodyParser,
  type Logger,
  loadSpec,
  mediaTypeOf,
  missingRequestBody,
  type OpenApiDocument,
  parseQueryString,
  queryNames,
  searchOf,
  specOperations,
  toApiError,
  undeclaredQueryParameter,
  unexpectedRequestBody,
} from "@compute-api/contract";
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";

/** Checks an API key; resolve false or throw an ApiError(401) to refuse it. */
export type Authenticate = (token: string, req: Request) => boolean | Promise<boolean>;

/** Options of the contract validator. */
export interface ContractValidatorOptions {
  /** The bundled document; default the one `loadSpec()` reads. */
  spec?: OpenApiDocument;
  /** Largest request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /** `enforce` (default): a response that breaks the spec becomes a 500; `off`: responses are not checked. */
  responses?: "enforce" | "off";
  /** Checks the bearer token after its form was checked; default: any well-formed token passes. */
  authenticate?: Authenticate;
}

/** The validator: middleware to mount, and a warm-up that compiles every schema before traffic arrives. */
export interface ContractValidator {
  /**
   * JSON body parser (with the body limit) followed by express-openapi-validator and the checks it lacks. Mount it
   * on an app whose query parser is the contract's, `app.set("query parser", parseQueryString)`; on any other it answers 500.
   */
  middleware: RequestHandler[];
  /** Compiles the validators of every operation by sending each operation's example through them; throws when the spec does not compile. */
  warmUp(): Promise<void>;
}

type OpenApiRequest = Request & { openapi?: { openApiRoute?: string } };

/** Builds the validator. Schemas compile lazily inside express-openapi-validator; call warmUp() before listening. */
export function createContractValidator(options: ContractValidatorOptions = {}): ContractValidator {
  const spec = options.spec ?? loadSpec();
  const authenticate = options.authenticate;
  const validator = OpenApiValidator.middleware({
    // A copy (the validator changes what it is given) whose size-limited schemas check items and keys within the limit only.
    apiSpec: boundedSchemas(spec) as never,
    validateApiSpec: true,
    // Unknown query parameters are refused by undeclaredQueryParameters below, which names them as sent.
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: options.responses === "off" ? false : { allErrors: true },
    validateSecurity: {
      handlers: {
        bearerAuth: async (req) => {
          const token = bearerToken(req);
          if (!token) throw new ApiError(401, "Authorization header must be `Bearer <API key>`");
          return authenticate ? authenticate(token, req) : true;
        },
      },
    },
    validateFormats: true,
    ajvFormats: { mode: "full" },
    formats: {
      int32: { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
    },
  }) as RequestHandler[];
  // The body check belongs after security (401 first) and before the request validator, as in the compiled contract.
  const at = validator.findIndex((handler) => handler.name === "requestMiddleware");
  if (at < 0)
    throw new Error(
      "express-openapi-validator no longer has a requestMiddleware: the stub's validator set-up needs a look",
    );

  const middleware: RequestHandler[] = [
    contractQueryParser,
    jsonBodyParser(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }) as RequestHandler,
    ...validator.slice(0, at),
    requestBodies(spec),
    ...validator.slice(at),
    undeclaredQueryParameters(spec),
  ];
  return { middleware, warmUp: () => warmUp(spec, middleware) };
}

/**
 * Fails closed on an app whose query parser is not the contract's: express-openapi-validator validates `req.query`,
 * and with Express's default parser whatever follows 1,000 pairs went unchecked to the handler.
 */
const contractQueryParser: RequestHandler = (req, _res, next) => {
  if (req.app.get("query parser fn") === parseQueryString) return next();
  next(
    new Error('the contract validator needs app.set("query parser", parseQueryString) (from @compute-api/contract)'),
  );
};

/** `METHOD /template` → what is wanted of the operation. */
const byRoute = <T>(
  spec: OpenApiDocument,
  f: (operation: Record<string, unknown>, parameters: { name: string; in: string }[]) => T,
) =>
  new Map(
    specOperations(spec).map(({ path, method, operation, parameters }) => [
      `${method} ${path}`,
      f(operation, parameters),
    ]),
  );

/** The route of a request as express-openapi-validator found it, as `method /template`. */
const routeOf = (req: OpenApiRequest): string | undefined => {
  const route = req.openapi?.openApiRoute;
  return route === undefined ? undefined : `${req.method.toLowerCase()} ${route}`;
};

/**
 * Refuses a body the operation does not take, and a JSON request without a body when the operation requires one.
 * express-openapi-validator ignores a body sent to an operation without `requestBody` (the handler got it), and
 * decides whether a body is required from its schema's `required` list, not from `requestBody.required`, so a
 * PATCH with `Content-Type: application/json` and no body used to reach the handler (and answer 500).
 */
function requestBodies(spec: OpenApiDocument): RequestHandler {
  const bodies = byRoute(spec, (operation) => {
    if (!operation.requestBody) return { takesBody: false, required: undefined };
    const body = deref<{ required?: boolean; content?: Record<string, unknown> }>(spec, operation.requestBody);
    return {
      takesBody: true,
      required: body.required === true ? new Set(Object.keys(body.content ?? {}).map(mediaTypeOf)) : undefined,
    };
  });
  return (req, _res, next) => {
    const route = routeOf(req);
    const body = route === undefined ? undefined : bodies.get(route);
    if (body && !body.takesBody && hasRequestBody(req.headers)) return next(invalidRequest([unexpectedRequestBody]));
    if (!body?.required || req.body !== undefined || !body.required.has(mediaTypeOf(req.headers["content-type"])))
      return next();
    next(invalidRequest([missingRequestBody]));
  };
}

/**
 * Refuses query parameters the operation does not declare, named as sent. express-openapi-validator's own check
 * comes after its bracket-notation handling, which drops a name such as `[x]` or `x[` (so it was neither refused
 * nor seen) and renames `a[b]` to `a`; here the names are read from the query string itself.
 */
function undeclaredQueryParameters(spec: OpenApiDocument): RequestHandler {
  const declared = byRoute(
    spec,
    (_operation, parameters) => new Set(parameters.filter((p) => p.in === "query").map((p) => p.name)),
  );
  return (req, _res, next) => {
    const route = routeOf(req);
    if (route === undefined) return next();
    const known = declared.get(route) ?? new Set<string>();
    const unknown = queryNames(searchOf(req.originalUrl)).filter((name) => !known.has(name));
    if (unknown.length === 0) return next();
    next(invalidRequest(unknown.map(undeclaredQueryParameter)));
  };
}

/** One example request per operation of the spec, built from its parameter and request body examples. */
function exampleRequests(spec: OpenApiDocument): { method: string; path: string; body?: unknown; response: unknown }[] {
  const out: { method: string; path: string; body?: unknown; response: unknown }[] = [];
  type Content = Record<string, { examples?: Record<string, { value?: unknown; $ref?: string }> }>;
  const firstExample = (content: Content | undefined): unknown => {
    const ex = Object.values(content?.["application/json"]?.examples ?? {})[0];
    return ex ? deref<{ value?: unknown }>(spec, ex).value : undefined;
  };
  for (const { path: template, method, operation, parameters } of specOperations(spec)) {
    const { requestBody, responses } = operation as {
      requestBody?: { content?: Content };
      responses?: Record<string, { content?: Content }>;
    };
    let path = template;
    const query = new URLSearchParams();
    for (const p of parameters) {
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(String(p.example ?? "x")));
      if (p.in === "query") query.set(p.name, String(p.example ?? "x"));
    }
    const body = firstExample(requestBody?.content);
    const response = firstExample(responses?.["200"]?.content);
    const qs = query.toString().replaceAll("+", "%20");
    out.push({
      method: method.toUpperCase(),
      path: qs ? `${path}?${qs}` : path,
      response,
      ...(body === undefined ? {} : { body }),
    });
  }
  return out;
}

/**
 * Sends each operation's example request through the validator on a private loopback server whose handler
 * answers with the spec's own 200 example, so request and response validators of every operation compile
 * now. express-openapi-validator caches compiled validators in the middleware instance, which the real app
 * shares.
 */
async function warmUp(spec: OpenApiDocument, middleware: RequestHandler[]): Promise<void> {
  const requests = exampleRequests(spec);
  const app = express();
  app.set("query parser", parseQueryString);
  app.use(middleware);
  const answer: RequestHandler = (req, res) => {
    res.status(200).json(requests[Number(req.headers["x-warm-up"])]?.response ?? {});
  };
  app.use(answer);
  const failures: string[] = [];
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const apiError = toApiError(err);
    failures.push(`${req.method} ${req.path}: ${apiError.status} ${(err as Error).message ?? apiError.message}`);
    res.status(apiError.status).json(apiError.toBody());
  };
  app.use(onError);
  const server: Server = await new Promise((resolve) => {
    // exclusive: in a node:cluster worker, port 0 would otherwise be shared with the other workers' warm-ups.
    const s = app.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => resolve(s));
  });
  try {
    const { port } = server.address() as { port: number };
    for (const [i, r] of requests.entries()) {
      const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
        method: r.method,
        headers: {
          authorization: "Bearer warm-up",
          "x-warm-up": String(i),
          ...(r.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
      });
      await res.arrayBuffer();
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  if (failures.length > 0)
    throw new Error(`the OpenAPI document does not work with the validator:\n  ${failures.join("\n  ")}`);
}

/**
 * Answers every error with the interface's error body; a 5xx is logged with its stack, never sent, unless it was
 * answered on purpose (`injected`: a fault the caller or the command line asked for).
 */
export function errorHandler(
  logger?: Logger,
  injected: (error: unknown) => boolean = () => false,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500 && !injected(err)) logger?.error({ err, path: req.path }, "request failed");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.set(apiError.headers);
    res.status(apiError.status).json(apiError.toBody());
  };
}

/** 404 for a path the app does not serve (outside what the validator routes). */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, `no route for ${req.method} ${req.path.slice(0, 200)}`, [errorInfoDetail("NOT_FOUND")]));
};
