/**
 * Arbitraries of whole requests of the operations of the bundled spec (their shapes: operation-shapes.ts):
 * schema-valid ones, and ones with exactly one constraint broken, named by the field the answer must blame; and
 * the request as written on the wire.
 */
import type { OpenApiDocument } from "@compute-api/contract";
import fc from "fast-check";
import type { RawRequest } from "./http.js";
import { type OperationShape, operationShapes, type ParameterShape } from "./operation-shapes.js";
import { createSchemaArbitraries, type SchemaArbitraries, type SchemaArbitraryOptions } from "./schema-arbitrary.js";
import { type Mutant, type MutationSite, mutationSites } from "./schema-mutants.js";
import { nodeAt } from "./schema-node.js";
import { isWellFormed } from "./string-arbitrary.js";

/** A request before it is written: decoded parameter values and the body as a value. */
export interface RequestInput {
  path: Record<string, string>;
  query: [string, string][];
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
  body?: SchemaArbitraryOptions["override"];
}

/** The request as written on the wire: path segments and query percent-encoded, the body as JSON. */
export function toRawRequest(shape: OperationShape, input: RequestInput, apiKey: string): RawRequest {
  const path = shape.template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(input.path[name] ?? ""));
  const query = input.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (input.body !== undefined) headers["content-type"] = "application/json";
  return {
    method: shape.method,
    path: query ? `${path}?${query}` : path,
    headers,
    ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
  };
}

/** A field path as the error body writes it: names joined with `.`, array indices as `[i]`. */
export function fieldOf(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (acc, step) => (typeof step === "number" ? `${acc}[${step}]` : acc === "" ? step : `${acc}.${step}`),
    "",
  );
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

  /** Schema-valid requests of the operation; biases mix in values that exist (3 to 1), so the 200 path is taken. */
  function valid(operationId: string, biases: Biases = {}): fc.Arbitrary<RequestInput> {
    const shape = shapeOf(operationId);
    const path = fc.record(Object.fromEntries(shape.path.map((p) => [p.name, parameter(p, biases.path?.[p.name])])));
    const query = fc.tuple(
      ...shape.query.map((p) => {
        const value = parameter(p, biases.query?.[p.name]).map((v): [string, string][] => [[p.name, v]]);
        return p.required ? value : fc.option(value, { nil: [] as [string, string][] });
      }),
    );
    const body = shape.body
      ? arbitraries.forPointer(shape.body, biases.body ? { override: biases.body } : {})
      : fc.constant(undefined);
    return fc
      .record({ path, query: query.map((q) => q.flat()), body })
      .map(({ body: b, ...rest }) => (b === undefined ? rest : { ...rest, body: b }));
  }

  /** Every constraint of the operation's request that one request can break, each with its arbitrary of requests. */
  function mutants(operationId: string, biases: Biases = {}): RequestSite[] {
    const shape = shapeOf(operationId);
    const base = valid(operationId, biases);
    const out: RequestSite[] = [];
    /** Puts each mutant of a schema site into an otherwise valid request. */
    const lift = (name: string, site: MutationSite, place: (input: RequestInput, m: Mutant) => MutantInput) => {
      const into = (mutant: fc.Arbitrary<Mutant>) => fc.tuple(base, mutant).map(([input, m]) => place(input, m));
      out.push({ site: name, arbitrary: into(site.arbitrary), nearMisses: (site.nearMisses ?? []).map(into) });
    };
    for (const p of shape.path) {
      for (const site of mutationSites(arbitraries, [nodeAt(spec, p.schema)], { carrier: "path" })) {
        const name = `path ${p.name} ${site.keyword}`;
        lift(name, site, (input, m) => ({
          input: { ...input, path: { ...input.path, [p.name]: String(m.value) } },
          field: p.name,
          keyword: m.keyword,
          site: name,
        }));
      }
    }
    for (const p of shape.query) {
      const replace = (input: RequestInput, value: string | undefined): RequestInput => ({
        ...input,
        query: [
          ...input.query.filter(([k]) => k !== p.name),
          ...(value === undefined ? [] : [[p.name, value] as [string, string]]),
        ],
      });
      for (const site of mutationSites(arbitraries, [nodeAt(spec, p.schema)], { carrier: "query" })) {
        const name = `query ${p.name} ${site.keyword}`;
        lift(name, site, (input, m) => ({
          input: replace(input, String(m.value)),
          field: p.name,
          keyword: m.keyword,
          site: name,
        }));
      }
      if (p.required) {
        const name = `query ${p.name} required`;
        out.push({
          site: name,
          arbitrary: base.map((input) => ({
            input: replace(input, undefined),
            field: p.name,
            keyword: "required",
            site: name,
          })),
          nearMisses: [],
        });
      }
    }
    // The parameter list is closed: a query parameter it does not declare is refused.
    const declared = new Set(shape.query.map((p) => p.name));
    const unknownName = fc.string({ minLength: 1, maxLength: 16 }).filter((k) => !declared.has(k) && isWellFormed(k));
    const unknownSite = "query (unknown parameter)";
    out.push({
      site: unknownSite,
      arbitrary: fc.tuple(base, unknownName, fc.string({ maxLength: 8 }).filter(isWellFormed)).map(([input, k, v]) => ({
        input: { ...input, query: [...input.query, [k, v]] },
        field: k,
        keyword: "unknown parameter",
        site: unknownSite,
      })),
      nearMisses: [],
    });
    if (shape.body) {
      for (const site of mutationSites(arbitraries, [nodeAt(spec, shape.body)], { carrier: "json" })) {
        const name = `body ${fieldOf(site.at) || "(root)"} ${site.keyword}`;
        lift(name, site, (input, m) => ({
          input: { ...input, body: m.value },
          field: fieldOf(m.path),
          keyword: m.keyword,
          site: name,
        }));
      }
    }
    return out;
  }

  return { shapes, shapeOf, valid, mutants, arbitraries };
}

/** The request arbitraries of one document. */
export type RequestArbitraries = ReturnType<typeof createRequestArbitraries>;
