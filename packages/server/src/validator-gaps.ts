/**
 * What express-openapi-validator does not check, and a compute server does, as the compiled contract does: the app's query
 * parser is the contract's in any app, a body sent to an operation that takes none, a JSON request without a required body,
 * and query parameters the operation does not declare, named as sent.
 */
import {
  deref,
  hasRequestBody,
  invalidRequest,
  mediaTypeOf,
  missingRequestBody,
  type OpenApiDocument,
  parseQueryString,
  searchOf,
  specOperations,
  undeclaredQueryParameter,
  unexpectedRequestBody,
} from "@compute-api/contract";
import type { Request, RequestHandler } from "express";

type OpenApiRequest = Request & { openapi?: { openApiRoute?: string } };

/**
 * Reads the query with the contract's parser, whatever the app's "query parser" is: express-openapi-validator
 * validates `req.query`, and Express's default parser stops at 1,000 pairs, so that whatever followed went
 * unchecked to the handler. An app set up with `app.set("query parser", parseQueryString)` is left as it is; in
 * any other (a host app the server's router is mounted in) the request's own `query` is the contract's reading.
 */
export const contractQueryParser: RequestHandler = (req, _res, next) => {
  if (req.app.get("query parser fn") !== parseQueryString) {
    Object.defineProperty(req, "query", {
      value: parseQueryString(searchOf(req.originalUrl)),
      writable: true,
      configurable: true,
      enumerable: true,
    });
  }
  next();
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
export function requestBodies(spec: OpenApiDocument): RequestHandler {
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

/** The names of the query parameters as sent, read with the contract's parser as its check of undeclared names reads them. */
const queryNames = (search: string): string[] => (search === "" ? [] : Object.keys(parseQueryString(search)));

/**
 * Refuses query parameters the operation does not declare, named as sent. express-openapi-validator's own check
 * comes after its bracket-notation handling, which drops a name such as `[x]` or `x[` (so it was neither refused
 * nor seen) and renames `a[b]` to `a`; here the names are read from the query string itself.
 */
export function undeclaredQueryParameters(spec: OpenApiDocument): RequestHandler {
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
