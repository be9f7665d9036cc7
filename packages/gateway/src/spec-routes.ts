/** Which requests the spec describes, for `--passthrough-unknown`. */
import { type OpenApiDocument, specOperations } from "@compute-api/contract";

/**
 * Returns a test of whether a method and path belong to an operation of the spec. It errs towards "known"
 * (any case, a trailing slash, HEAD as GET), so that nothing the validator would route escapes validation.
 */
export function createSpecRouteTest(spec: OpenApiDocument): (method: string, path: string) => boolean {
  const methodsOf = new Map<string, Set<string>>();
  for (const { path, method } of specOperations(spec))
    methodsOf.set(path, (methodsOf.get(path) ?? new Set()).add(method));
  const routes = [...methodsOf].map(([template, methods]) => ({
    pattern: new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map(escapeRegExp)
        .join("[^/]*")}/?$`,
      "i",
    ),
    methods,
  }));
  return (method, path) => {
    const m = method.toLowerCase();
    return routes.some((r) => r.pattern.test(path) && (r.methods.has(m) || (m === "head" && r.methods.has("get"))));
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
