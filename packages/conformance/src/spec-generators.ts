/**
 * The generators every operation gets from the spec alone: valid requests of an operation the runner has no
 * rules of its own for, requests with one constraint broken, and requests without a usable key. Valid requests
 * carry the spec's examples and the ids the key sees (`projectId`, `billingAccountId`) beside generated values,
 * and their answers are held to the response checks. An operation that writes (any method but GET, HEAD and
 * OPTIONS) gets valid requests only with writes, in the run's project.
 */
import fc from "fast-check";
import { authVerdict, negativeVerdict } from "./checks.js";
import type { Generator, GeneratorContext } from "./generator-context.js";
import type { ParameterShape } from "./operation-shapes.js";
import type { Biases } from "./requests.js";
import { nodeAt } from "./schema-node.js";
import { examplesAt } from "./spec-examples.js";

/** Methods that change nothing: their valid requests are sent in every run. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether a request of the operation can change the backend's state. */
export const writesState = (method: string): boolean => !safeMethods.has(method);

/** Valid requests of the operation, from its schemas, examples and the ids the key sees; none for a write without writes. */
export function specValidGenerators(ctx: GeneratorContext, operationId: string): Generator[] {
  const shape = ctx.requests.shapeOf(operationId);
  const writes = writesState(shape.method);
  if (writes && !ctx.writes) return [];
  const known: Record<string, readonly string[]> = writes
    ? { projectId: ctx.writes ? [ctx.writes.projectId] : [] }
    : { projectId: [...(ctx.access?.projects ?? [])], billingAccountId: [...(ctx.access?.billingAccounts ?? [])] };
  // A write names only the run's project: its other ids are generated, not the examples (which may exist).
  const { arbitraries } = ctx.requests;
  const bias = (p: ParameterShape) => {
    const values = [...(known[p.name] ?? []), ...(writes ? [] : examplesAt(arbitraries, p.schema))];
    const valid = values.filter((v) => arbitraries.isValid([nodeAt(arbitraries.document, p.schema)], v)).map(String);
    return valid.length > 0 ? [[p.name, fc.constantFrom(...valid)] as const] : [];
  };
  const bodyExamples = shape.body ? examplesAt(arbitraries, shape.body) : [];
  const biases: Biases = {
    path: Object.fromEntries(shape.path.flatMap(bias)),
    query: Object.fromEntries(shape.query.flatMap(bias)),
    header: Object.fromEntries(shape.header.flatMap(bias)),
    ...(bodyExamples.length > 0
      ? {
          body: (path, fallback) =>
            path.length === 0 ? fc.oneof(fc.constantFrom(...bodyExamples), fallback()) : undefined,
        }
      : {}),
  };
  return [
    {
      name: `valid ${operationId}`,
      arbitrary: ctx.requests.valid(operationId, biases).map((input) => ({
        operationId,
        request: ctx.withKey(operationId, input),
        judge: ctx.judges.judge(operationId),
      })),
    },
  ];
}

/** Requests with one constraint broken, each refused with 400 naming the field; harmless if accepted. */
export function brokenGenerators(ctx: GeneratorContext, operationId: string): Generator[] {
  const sites = ctx.requests.mutants(operationId, ctx.harmless(operationId));
  if (sites.length === 0) return [];
  return [
    {
      name: `broken ${operationId}`,
      arbitrary: fc.oneof(...sites.map((s) => s.arbitrary)).map((m) => ({
        operationId,
        request: ctx.withKey(operationId, m.input),
        judge: ctx.judges.judge(operationId, (a) => ({ negative_data_rejection: negativeVerdict(a, m.field, m.site) })),
      })),
    },
  ];
}

/** Ways of sending no usable key: the name of each, and the Authorization it sends (none: undefined). */
const noUsableKey = fc.oneof(
  fc.constant(["no Authorization", undefined] as const),
  fc.constant(["Basic credentials", "Basic Y29uZm9ybWFuY2U6eA=="] as const),
  fc.constant(["Bearer without a key", "Bearer"] as const),
  fc.constant(["a malformed bearer key", "Bearer not a key"] as const),
  fc.nat().map((n) => ["an unknown key", `Bearer cak_conformance-unknown-${n.toString(36)}`] as const),
);

/** Requests without a usable key, refused with 401 before anything else; harmless if accepted. */
export function keylessGenerator(ctx: GeneratorContext, operationId: string): Generator {
  return {
    name: `no usable key ${operationId}`,
    arbitrary: fc.tuple(ctx.requests.valid(operationId, ctx.harmless(operationId)), noUsableKey).map(([input, how]) => {
      const [name, authorization] = how;
      const request = ctx.withKey(operationId, input);
      const headers = Object.fromEntries(Object.entries(request.headers ?? {}).filter(([k]) => k !== "authorization"));
      return {
        operationId,
        request: { ...request, headers: authorization === undefined ? headers : { ...headers, authorization } },
        judge: ctx.judges.judge(operationId, (a) => ({ ignored_auth: authVerdict(a, name) })),
      };
    }),
  };
}
