/**
 * The operation a request is for, from its method and path alone, for the journal of a request a fault answered
 * before the validator routed it (`--faults`, `--drop`). Routed as the validator routes (any letter case, an optional
 * trailing slash, a parameter one whole segment, literal segments before parameters); a request no operation
 * answers has none. The compiled contract routes the same way in the MSW handlers, which have it at hand; the
 * command compiles no contract for this.
 */
import { type OpenApiDocument, specOperations } from "@compute-api/contract";

/** One operation's path template, by segment: a literal (lower case) or a parameter (null). */
interface Template {
  operationId: string;
  method: string;
  segments: (string | null)[];
}

/** The segments of a path, without its trailing slash, lower case. */
const segmentsOf = (path: string): string[] =>
  path
    .replace(/(.)\/$/, "$1")
    .toLowerCase()
    .split("/");

/** Finds the operation of a method and path; undefined when no operation answers them. */
export function operationFinder(spec: OpenApiDocument): (method: string, path: string) => string | undefined {
  const templates: Template[] = specOperations(spec).map(({ path, method, operation }) => ({
    operationId: String(operation.operationId),
    method: method.toUpperCase(),
    segments: segmentsOf(path).map((segment) => (/^\{[^}]+\}$/.test(segment) ? null : segment)),
  }));
  // Literal segments before parameters, as the validator orders its routes.
  const weight = (t: Template) => t.segments.map((segment) => (segment === null ? "1" : "0")).join("");
  templates.sort((a, b) => (weight(a) < weight(b) ? -1 : weight(a) > weight(b) ? 1 : 0));
  return (method, path) => {
    const segments = segmentsOf(path);
    const upper = method.toUpperCase();
    return templates.find(
      (t) =>
        t.method === upper &&
        t.segments.length === segments.length &&
        t.segments.every((segment, i) => (segment === null ? segments[i] !== "" : segment === segments[i])),
    )?.operationId;
  };
}
