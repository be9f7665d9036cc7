/**
 * The route table of the compiled contract: which operation a method and request target are for, with the path
 * parameters decoded. Paths are matched by path-to-regexp, the matcher of Express and of express-openapi-validator,
 * with their options (any letter case, an optional trailing slash, the raw path, parameters percent-decoded), so
 * that the gateway routes exactly what the stub routes. Each pattern is compiled once, at start-up.
 */
import { pathToRegexp } from "path-to-regexp";
import type { ApiError } from "./api-error.js";
import { malformedUri, methodNotAllowed, notFound } from "./error-catalogue.js";
import { pathOf } from "./query.js";

/** A route: one path template and its operations by upper-case method. */
interface Route<T> {
  template: string;
  regexp: RegExp;
  keys: string[];
  operations: Map<string, T>;
}

/** The operation a request is for, with its decoded path parameters. */
export interface RouteMatch<T> {
  operation: T;
  /** The path template, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  template: string;
  params: Record<string, string>;
}

/** Routes requests to operations; anything else is the ApiError that answers it. */
export interface RouteTable<T> {
  /** The operation for a method and request target (path and query, as received): 404, 405 or 400 otherwise. */
  route(method: string, url: string): RouteMatch<T> | ApiError;
}

/** One operation to route: its method, path template and what the route table hands back. */
export interface RouteEntry<T> {
  method: string;
  template: string;
  operation: T;
}

/** `{id}` becomes `:id`; everything else is literal text (path-to-regexp's special characters escaped). */
const toPattern = (template: string): string =>
  template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? `:${part.slice(1, -1)}` : part.replace(/[{}()[\]?+!*:\\]/g, "\\$&")))
    .join("");

/** express-openapi-validator's order: a static route before a parametric one that shares its prefix. */
const byPrecedence = (a: Route<unknown>, b: Route<unknown>): number => {
  const e1 = toPattern(a.template).replace(/\/:/g, "/~");
  const e2 = toPattern(b.template).replace(/\/:/g, "/~");
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
};

/** Builds the table; a template path-to-regexp cannot compile throws, naming it. */
export function createRouteTable<T>(entries: readonly RouteEntry<T>[]): RouteTable<T> {
  const byTemplate = new Map<string, Route<T>>();
  for (const { method, template, operation } of entries) {
    let route = byTemplate.get(template);
    if (!route) {
      let compiled: ReturnType<typeof pathToRegexp>;
      try {
        compiled = pathToRegexp(toPattern(template), { sensitive: false });
      } catch (error) {
        throw new Error(`the path ${template} cannot be routed: ${(error as Error).message}`);
      }
      route = { template, regexp: compiled.regexp, keys: compiled.keys.map((k) => k.name), operations: new Map() };
      byTemplate.set(template, route);
    }
    route.operations.set(method.toUpperCase(), operation);
  }
  const routes = [...byTemplate.values()].sort(byPrecedence);

  const find = (path: string) => {
    for (const route of routes) {
      const match = route.regexp.exec(path);
      if (match) return { route, match };
    }
    return undefined;
  };

  return {
    route(method, url) {
      const found = find(pathOf(url));
      if (!found) return notFound();
      const { route, match } = found;
      // Parameters are decoded before the method is looked at, as express-openapi-validator does.
      const params: Record<string, string> = {};
      try {
        route.keys.forEach((name, i) => {
          params[name] = decodeURIComponent(match[i + 1] ?? "");
        });
      } catch {
        return malformedUri();
      }
      const operation = route.operations.get(method);
      if (operation === undefined) return methodNotAllowed(method, [...route.operations.keys()].join(", "));
      return { operation, template: route.template, params };
    },
  };
}
