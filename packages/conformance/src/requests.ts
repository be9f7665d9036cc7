/**
 * Arbitraries of whole requests of the operations of the bundled spec (their shapes: operation-shapes.ts):
 * schema-valid ones, and ones with exactly one constraint broken, named by the field the answer must blame; and
 * the request as written on the wire.
 */
import type { OpenApiDocument } from "@compute-api/contract";
import fc from "fast-check";
import type { RawRequest } from "./http.js";
import { type OperationShape, operationShapes, type ParameterShape } from "./operation-shapes.js";
import { requestSites } from "./request-sites.js";
import { createSchemaArbitraries, type SchemaArbitraries, type SchemaArbitraryOptions } from "./schema-arbitrary.js";

export { fieldOf } from "./request-sites.js";

/** A request before it is written: decoded parameter values and the body as a value. */
export interface RequestInput {
  path: Record<string, string>;
  query: [string, string][];
  /** Header parameters, by name. */
  headers?: Record<string, string>;
  body?: unknown;
}

/** A request with one constraint broken, and the field its 400 must name. */
export interface MutantInput {
  input: RequestInput;
  /** The `field` of the violation the answer must list: `priceHr.value`, `volumeIds[2]`, `projectId`, `` (the body). */
  field: string;
  keyword: string;
  /** Which constraint: `body priceHr.value pattern`, `path projectId maxLength`, `query (unknown parameter)`. */
  site: string;
}

/** One constraint of an operation's request, with its arbitrary of requests and, for a pattern, its near misses. */
export interface RequestSite {
  site: string;
  arbitrary: fc.Arbitrary<MutantInput>;
  nearMisses: fc.Arbitrary<MutantInput>[];
}

/** Biases for valid values: what to put at a parameter, or at a path in the body (`["volumeIds", "*"]`, with the schema's own arbitrary to mix in). */
export interface Biases {
  path?: Record<string, fc.Arbitrary<string>>;
  query?: Record<string, fc.Arbitrary<string>>;
  header?: Record<string, fc.Arbitrary<string>>;
  body?: SchemaArbitraryOptions["override"];
}

/** The request as written on the wire: path segments and query percent-encoded, the body as JSON. */
export function toRawRequest(shape: OperationShape, input: RequestInput, apiKey: string): RawRequest {
  const path = shape.template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(input.path[name] ?? ""));
  const query = input.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const headers: Record<string, string> = { ...input.headers, authorization: `Bearer ${apiKey}` };
  if (input.body !== undefined) headers["content-type"] = "application/json";
  return {
    method: shape.method,
    path: query ? `${path}?${query}` : path,
    headers,
    ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
  };
}

/** Arbitraries of requests of the operations of one document. */
export function createRequestArbitraries(
  spec: OpenApiDocument,
  arbitraries: SchemaArbitraries = createSchemaArbitraries(spec),
) {
  const shapes = operationShapes(spec);
  const shapeOf = (operationId: string): OperationShape => {
    const shape = shapes.get(operationId);
    if (!shape) throw new Error(`no operation ${operationId} in the spec`);
    return shape;
  };
  const parameter = (p: ParameterShape, bias: fc.Arbitrary<string> | undefined): fc.Arbitrary<string> => {
    const fromSchema = arbitraries.forPointer(p.schema) as fc.Arbitrary<string>;
    return bias ? fc.oneof({ arbitrary: bias, weight: 3 }, { arbitrary: fromSchema, weight: 1 }) : fromSchema;
  };
  /** Values of the parameters, each optional one left out at times. */
  const parameters = (list: ParameterShape[], biases: Record<string, fc.Arbitrary<string>> = {}) =>
    fc
      .tuple(
        ...list.map((p) => {
          const value = parameter(p, biases[p.name]).map((v): [string, string][] => [[p.name, String(v)]]);
          return p.required ? value : fc.option(value, { nil: [] as [string, string][] });
        }),
      )
      .map((q) => q.flat());

  /** Schema-valid requests of the operation; biases mix in values that exist (3 to 1), so the 200 path is taken. */
  function valid(operationId: string, biases: Biases = {}): fc.Arbitrary<RequestInput> {
    const shape = shapeOf(operationId);
    const path = fc.record(Object.fromEntries(shape.path.map((p) => [p.name, parameter(p, biases.path?.[p.name])])));
    const body = shape.body
      ? arbitraries.forPointer(shape.body, biases.body ? { override: biases.body } : {})
      : fc.constant(undefined);
    return fc
      .record({
        path,
        query: parameters(shape.query, biases.query),
        headers: parameters(shape.header, biases.header),
        body,
      })
      .map(({ body: b, headers, ...rest }) => ({
        ...rest,
        ...(headers.length === 0 ? {} : { headers: Object.fromEntries(headers) }),
        ...(b === undefined ? {} : { body: b }),
      }));
  }

  /** Every constraint of the operation's request that one request can break, each with its arbitrary of requests. */
  function mutants(operationId: string, biases: Biases = {}): RequestSite[] {
    return requestSites(arbitraries, shapeOf(operationId), valid(operationId, biases));
  }

  return { shapes, shapeOf, valid, mutants, arbitraries };
}

/** The request arbitraries of one document. */
export type RequestArbitraries = ReturnType<typeof createRequestArbitraries>;
