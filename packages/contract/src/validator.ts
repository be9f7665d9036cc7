/**
 * Request and response validation against the bundled spec with express-openapi-validator, set up once for the
 * stub server and the gateway: the same body limit, the same security check, the same compiled schemas.
 */
import type { IncomingMessage, Server } from "node:http";
import { parse as parseQueryString } from "node:querystring";
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { ApiError, errorInfoDetail, invalidRequest, toApiError, toFieldViolation, type FieldViolation } from "./errors.js";
import { deref, loadSpec, specOperations, type OpenApiDocument } from "./spec.js";
import type { Logger } from "./logging.js";

/** Largest request body accepted, in bytes (1 MiB). */
export const defaultMaxBodyBytes = 1024 * 1024;

/** What happens to a response that breaks the spec. */
export type ResponseValidationMode = "enforce" | "report" | "off";

/** Checks an API key; resolve false or throw an ApiError(401) to refuse it. */
export type Authenticate = (token: string, req: Request) => boolean | Promise<boolean>;

/** Options of the contract validator. */
export interface ContractValidatorOptions {
  /** The bundled document; default generated/openapi.json. */
  spec?: OpenApiDocument;
  /** Largest request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /** `enforce` (default): a non-conforming response becomes an error; `report`: it passes, onResponseViolations hears of it; `off`. */
  responses?: ResponseValidationMode;
  /** Called in `report` mode with the violations of a response that passed through anyway. */
  onResponseViolations?: (violations: FieldViolation[], req: Request) => void;
  /** Checks the bearer token after its form was checked; default: any well-formed token passes. */
  authenticate?: Authenticate;
  /** Hears the bytes of each parsed JSON request body (decompressed, before decoding), e.g. to forward them as received. */
  onRawBody?: (req: IncomingMessage, body: Buffer) => void;
}

/** The validator: middleware to mount, and a warm-up that compiles every schema before traffic arrives. */
export interface ContractValidator {
  /** JSON body parser (with the body limit) followed by express-openapi-validator. */
  middleware: RequestHandler[];
  /** Compiles the validators of every operation by sending each operation's example through them; throws when the spec does not compile. */
  warmUp(): Promise<void>;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(req: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const header = req.headers["authorization"];
  const match = typeof header === "string" ? /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header) : null;
  return match?.[1];
}

/** Builds the validator. Schemas compile lazily inside express-openapi-validator; call warmUp() before listening. */
export function createContractValidator(options: ContractValidatorOptions = {}): ContractValidator {
  const spec = options.spec ?? loadSpec();
  const mode = options.responses ?? "enforce";
  const authenticate = options.authenticate;
  const onRawBody = options.onRawBody;
  const validateResponses =
    mode === "off"
      ? false
      : mode === "report"
        ? {
            allErrors: true,
            onError: (err: { errors?: { path?: string; message?: string; errorCode?: string }[]; message?: string }, _body: unknown, req: Request) =>
              options.onResponseViolations?.((err.errors ?? [{ path: "/response", message: err.message ?? "invalid" }]).map(toFieldViolation), req),
          }
        : { allErrors: true };

  const validator = OpenApiValidator.middleware({
    apiSpec: structuredClone(spec) as never,
    validateApiSpec: true,
    // Unknown query parameters are refused by undeclaredQueryParameters below, which names them as sent.
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses,
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
  });

  const middleware: RequestHandler[] = [
    express.json({
      limit: options.maxBodyBytes ?? defaultMaxBodyBytes,
      strict: true,
      type: ["application/json", "application/*+json"],
      ...(onRawBody ? { verify: (req: IncomingMessage, _res: unknown, body: Buffer) => onRawBody(req, body) } : {}),
    }),
    ...(validator as RequestHandler[]),
    undeclaredQueryParameters(spec),
  ];
  return { middleware, warmUp: () => warmUp(spec, middleware) };
}

/**
 * Refuses query parameters the operation does not declare, named as sent. express-openapi-validator's own check
 * comes after its bracket-notation handling, which drops a name such as `[x]` or `x[` (so it was neither refused
 * nor seen) and renames `a[b]` to `a`; here the names are read from the query string itself.
 */
function undeclaredQueryParameters(spec: OpenApiDocument): RequestHandler {
  const declared = new Map(
    specOperations(spec).map(({ path, method, parameters }) => [
      `${method} ${path}`,
      new Set(parameters.filter((p) => p.in === "query").map((p) => p.name)),
    ]),
  );
  return (req, _res, next) => {
    const route = (req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
    const search = req.originalUrl.indexOf("?");
    if (!route || search < 0) return next();
    // express-openapi-validator answers HEAD with the GET operation's schema.
    const method = req.method === "HEAD" ? "get" : req.method.toLowerCase();
    const known = declared.get(`${method} ${route}`) ?? new Set<string>();
    const unknown = Object.keys(parseQueryString(req.originalUrl.slice(search + 1))).filter((name) => !known.has(name));
    if (unknown.length === 0) return next();
    next(invalidRequest(unknown.map((name) => ({ field: name, description: `Unknown query parameter '${name}'`, reason: "invalid" }))));
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
    const { requestBody, responses } = operation as { requestBody?: { content?: Content }; responses?: Record<string, { content?: Content }> };
    let path = template;
    const query = new URLSearchParams();
    for (const p of parameters) {
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(String(p.example ?? "x")));
      if (p.in === "query") query.set(p.name, String(p.example ?? "x"));
    }
    const body = firstExample(requestBody?.content);
    const response = firstExample(responses?.["200"]?.content);
    const qs = query.toString().replaceAll("+", "%20");
    out.push({ method: method.toUpperCase(), path: qs ? `${path}?${qs}` : path, response, ...(body === undefined ? {} : { body }) });
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
        headers: { authorization: "Bearer warm-up", "x-warm-up": String(i), ...(r.body === undefined ? {} : { "content-type": "application/json" }) },
        ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
      });
      await res.arrayBuffer();
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  if (failures.length > 0) throw new Error(`the OpenAPI document does not work with the validator:\n  ${failures.join("\n  ")}`);
}

/** Answers every error with the interface's error body; a 5xx is logged with its stack, never sent. */
export function errorHandler(logger?: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) logger?.error({ err, path: req.path }, "request failed");
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
