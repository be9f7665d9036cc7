/**
 * The valid requests of the three operations whose rules the runner checks beyond the schema: searches of the
 * words the key sees and of the resource types, queries at the edges of the query rules, PATCHes of the one
 * machine of the writes, and API keys with the run's prefix.
 */
import fc from "fast-check";
import type { Generator, GeneratorContext } from "./generator-context.js";
import { keyCreationVerdict } from "./key-probes.js";
import type { Writes } from "./restore.js";
import { searchTerms } from "./spec-facts.js";
import { patchVerdicts } from "./update-rules.js";

/** The operations whose valid requests are written for their rules; every other operation's come from the spec. */
export const statefulOperations: readonly string[] = ["searchResources", "updateClusterMachine", "createApiKey"];

/** Valid searches, and queries at the edges of the query rules, each judged by every search check. */
export function searchGenerators(ctx: GeneratorContext): Generator[] {
  const { requests, words, resourceTypes, search, judges } = ctx;
  const operationId = "searchResources";
  const schemaQuery = requests.valid(operationId).map((input) => input.query.find(([k]) => k === "query")?.[1] ?? "");
  const term = fc.oneof(
    fc.constantFrom(...(words.length > 0 ? words : ["a"])),
    fc.constantFrom(...resourceTypes).map((t) => `type:${t}`),
  );
  const query = fc.oneof(
    { arbitrary: fc.array(term, { minLength: 1, maxLength: 2 }).map((t) => t.join(" ")), weight: 2 },
    { arbitrary: schemaQuery, weight: 1 },
  );
  const searchOf = (q: string) => ({ operationId, request: search(q), judge: judges.search(q) });
  return [
    { name: `valid ${operationId}`, arbitrary: query.map(searchOf) },
    { name: `query rules ${operationId}`, arbitrary: queryRuleQueries(words, resourceTypes).map(searchOf) },
  ];
}

/** Valid PATCHes of the machine's power state and price, judged against the machine as the run last saw it. */
export function updateGenerator(ctx: GeneratorContext, writes: Writes): Generator {
  const operationId = "updateClusterMachine";
  const { model } = ctx;
  const bodies = ctx.requests
    .valid(operationId)
    .map((input) =>
      Object.fromEntries(Object.entries(input.body as object).filter(([k]) => k === "powerState" || k === "priceHr")),
    )
    .filter((body) => Object.keys(body).length > 0);
  return {
    name: `valid ${operationId}`,
    arbitrary: bodies.map((body) => ({
      operationId,
      request: ctx.patch(writes, body),
      judge: ctx.judges.judge(operationId, (a) => (model ? patchVerdicts(body, a, model) : {})),
    })),
  };
}

/** New API keys with the run's prefix, each judged by api_key_uniqueness. */
export function keyGenerator(ctx: GeneratorContext): Generator {
  const operationId = "createApiKey";
  return {
    name: `valid ${operationId}`,
    arbitrary: fc.nat().map((n) => {
      const apikeyId = `${ctx.keyPrefix}-${n.toString(36)}`;
      return {
        operationId,
        request: ctx.withKey(operationId, { path: {}, query: [], body: { apikeyId } }),
        judge: ctx.judges.judge(operationId, (a) => {
          const verdict = keyCreationVerdict(apikeyId, a);
          return verdict === undefined ? {} : { api_key_uniqueness: verdict };
        }),
      };
    }),
  };
}

/**
 * Queries at the edges of the query rules (the spec's `x-search-terms`): more than `maxTerms` terms besides the
 * type: term (repeats counted), `maxTerms` and a type: term (allowed), only white space, one type: term more than
 * allowed, an unknown type. Words are the ids the key sees, short enough that the query stays within its 256
 * characters.
 */
export function queryRuleQueries(words: readonly string[], resourceTypes: readonly string[]): fc.Arbitrary<string> {
  const short = words.filter((w) => w.length <= 20);
  const word = fc.constantFrom(...(short.length > 0 ? short : ["a"]));
  const { maxTerms, maxTypeTerms, typePrefix } = searchTerms;
  const type = fc.constantFrom(...resourceTypes).map((t) => `${typePrefix}${t}`);
  return fc.oneof(
    fc.array(word, { minLength: maxTerms + 1, maxLength: maxTerms + 4 }).map((w) => w.join(" ")),
    fc.tuple(fc.array(word, { minLength: maxTerms, maxLength: maxTerms }), type).map(([w, t]) => [...w, t].join(" ")),
    fc.integer({ min: 1, max: 3 }).map((n) => " ".repeat(n)),
    fc
      .tuple(fc.array(type, { minLength: maxTypeTerms + 1, maxLength: maxTypeTerms + 1 }), word)
      .map(([types, w]) => [w, ...types].join(" ")),
    word.map((w) => `${w} ${typePrefix}conformance`),
  );
}
