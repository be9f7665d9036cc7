/**
 * Every constraint of an operation's request that one request can break — a path or query parameter's keyword,
 * a required query parameter left out, a query parameter the list does not declare, a body keyword — each with
 * its arbitrary of otherwise valid requests and the field the 400 must name.
 */
import fc from "fast-check";
import type { OperationShape } from "./operation-shapes.js";
import type { MutantInput, RequestInput, RequestSite } from "./requests.js";
import type { SchemaArbitraries } from "./schema-arbitrary.js";
import { type Mutant, type MutationSite, mutationSites } from "./schema-mutants.js";
import { nodeAt } from "./schema-node.js";
import { isWellFormed } from "./string-arbitrary.js";

/** The sites of one operation's request, each mutant put into a request of `base`. */
export function requestSites(
  arbitraries: SchemaArbitraries,
  shape: OperationShape,
  base: fc.Arbitrary<RequestInput>,
): RequestSite[] {
  const out: RequestSite[] = [];
  const sitesAt = (pointer: string, carrier: "path" | "query" | "json") =>
    mutationSites(arbitraries, [nodeAt(arbitraries.document, pointer)], { carrier });
  /** Puts each mutant of a schema site into an otherwise valid request. */
  const lift = (name: string, site: MutationSite, place: (input: RequestInput, m: Mutant) => MutantInput) => {
    const into = (mutant: fc.Arbitrary<Mutant>) => fc.tuple(base, mutant).map(([input, m]) => place(input, m));
    out.push({ site: name, arbitrary: into(site.arbitrary), nearMisses: (site.nearMisses ?? []).map(into) });
  };
  for (const p of shape.path) {
    for (const site of sitesAt(p.schema, "path")) {
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
    const replace = (input: RequestInput, value: string | undefined) => withQuery(input, p.name, value);
    for (const site of sitesAt(p.schema, "query")) {
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
  out.push(unknownQuerySite(shape, base));
  if (shape.body) {
    for (const site of sitesAt(shape.body, "json")) {
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

/** The request with the query parameter set to `value`, or left out (undefined). */
function withQuery(input: RequestInput, name: string, value: string | undefined): RequestInput {
  return {
    ...input,
    query: [
      ...input.query.filter(([k]) => k !== name),
      ...(value === undefined ? [] : [[name, value] as [string, string]]),
    ],
  };
}

/** The parameter list is closed: a query parameter it does not declare is refused. */
function unknownQuerySite(shape: OperationShape, base: fc.Arbitrary<RequestInput>): RequestSite {
  const declared = new Set(shape.query.map((p) => p.name));
  const unknownName = fc.string({ minLength: 1, maxLength: 16 }).filter((k) => !declared.has(k) && isWellFormed(k));
  const site = "query (unknown parameter)";
  return {
    site,
    arbitrary: fc.tuple(base, unknownName, fc.string({ maxLength: 8 }).filter(isWellFormed)).map(([input, k, v]) => ({
      input: { ...input, query: [...input.query, [k, v]] },
      field: k,
      keyword: "unknown parameter",
      site,
    })),
    nearMisses: [],
  };
}

/** A field path as the error body writes it: names joined with `.`, array indices as `[i]`. */
export function fieldOf(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (acc, step) => (typeof step === "number" ? `${acc}[${step}]` : acc === "" ? step : `${acc}.${step}`),
    "",
  );
}
