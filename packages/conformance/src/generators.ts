/**
 * The streams of cases a run sends, for each operation: valid requests (searches always, writes only when asked
 * for), requests with one constraint broken, and requests without a usable key — each case with how its answer
 * is judged. Broken and key-less writes go to a machine that does not exist, and the key ids they carry have the
 * run's prefix: a backend that accepts what it must refuse still changes nothing that is not the run's.
 */
import type { Contract } from "@compute-api/contract";
import { searchTerms } from "@compute-api/spec/facts";
import fc from "fast-check";
import { type Access, authVerdict, negativeVerdict, type Verdicts } from "./checks.js";
import type { Answer, RawRequest } from "./http.js";
import { createJudges } from "./judges.js";
import { keyCreationVerdict } from "./key-probes.js";
import { type RequestArbitraries, type RequestInput, toRawRequest } from "./requests.js";
import type { Writes } from "./restore.js";
import { type MachineModel, patchVerdicts } from "./update-rules.js";

/** One generated request, with how to judge its answer. */
export interface Case {
  operationId: string;
  request: RawRequest;
  judge(answer: Answer): Verdicts;
}

/** A stream of cases: its name, and the arbitrary they come from. */
export interface Generator {
  name: string;
  arbitrary: fc.Arbitrary<Case>;
}

/** What the generators of a run are made from. */
export interface GeneratorOptions {
  requests: RequestArbitraries;
  contract: Contract;
  operationIds: readonly string[];
  apiKey: string;
  /** The run's seed: the ids of the keys it creates start with `conformance-<seed in base 36>-`. */
  seed: number;
  writes?: Writes | undefined;
  /** With writes: the machine as the run last saw it, which valid PATCHes are judged against and update. */
  model?: MachineModel | undefined;
  /** What the key sees, when it could be learned: search results are held to it. */
  access?: Access | undefined;
  /** Ids the key sees, for valid searches to find something. */
  words: readonly string[];
  resourceTypes: readonly string[];
}

/** An id that no backend has: the machine and project of the writes a safe run sends. */
const nowhere = { projectId: "conformance-no-such-project", id: "conformance-no-such-machine" };

/** The prefix of the ids of the API keys a run creates. */
export const keyPrefixOf = (seed: number): string => `conformance-${seed.toString(36)}`;

/** Requests with the run's key: any operation's, a search, and a PATCH of the one machine the run may write to. */
export function keyedRequests(requests: RequestArbitraries, apiKey: string) {
  const withKey = (operationId: string, input: RequestInput, key = apiKey) =>
    toRawRequest(requests.shapeOf(operationId), input, key);
  return {
    withKey,
    search: (query: string) => withKey("searchResources", { path: {}, query: [["query", query]] }),
    patch: (writes: Writes, body: unknown) =>
      withKey("updateClusterMachine", { path: { projectId: writes.projectId, id: writes.machineId }, query: [], body }),
  };
}

/** Every generator of the run, in the order the run takes them in turn. */
export function createGenerators(options: GeneratorOptions): Generator[] {
  const { requests, contract, writes, model, access, words, resourceTypes } = options;
  const { withKey, search, patch } = keyedRequests(requests, options.apiKey);
  const judges = createJudges({ contract, access, resourceTypes });
  const judgeWith = judges.judge;
  const generators: Generator[] = [];
  const absentMachine = { path: { projectId: fc.constant(nowhere.projectId), id: fc.constant(nowhere.id) } };
  const keyPrefix = keyPrefixOf(options.seed);
  const ourKeyIds = {
    body: (path: readonly string[]) =>
      path.join("/") === "apikeyId" ? fc.nat().map((n) => `${keyPrefix}-${n.toString(36)}`) : undefined,
  };
  for (const operationId of options.operationIds) {
    // Valid requests: searches always; writes only when asked for.
    if (operationId === "searchResources") {
      const schemaQuery = requests
        .valid("searchResources")
        .map((input) => input.query.find(([k]) => k === "query")?.[1] ?? "");
      const term = fc.oneof(
        fc.constantFrom(...(words.length > 0 ? words : ["a"])),
        fc.constantFrom(...resourceTypes).map((t) => `type:${t}`),
      );
      const query = fc.oneof(
        { arbitrary: fc.array(term, { minLength: 1, maxLength: 2 }).map((t) => t.join(" ")), weight: 2 },
        { arbitrary: schemaQuery, weight: 1 },
      );
      generators.push({
        name: "valid searchResources",
        arbitrary: query.map((q) => ({ operationId, request: search(q), judge: judges.search(q) })),
      });
      generators.push({
        name: "query rules searchResources",
        arbitrary: queryRuleQueries(words, resourceTypes).map((q) => ({
          operationId,
          request: search(q),
          judge: judges.search(q),
        })),
      });
    } else if (writes && operationId === "updateClusterMachine") {
      const bodies = requests
        .valid("updateClusterMachine")
        .map((input) =>
          Object.fromEntries(
            Object.entries(input.body as object).filter(([k]) => k === "powerState" || k === "priceHr"),
          ),
        )
        .filter((body) => Object.keys(body).length > 0);
      generators.push({
        name: "valid updateClusterMachine",
        arbitrary: bodies.map((body) => ({
          operationId,
          request: patch(writes, body),
          judge: judgeWith(operationId, (a) => (model ? patchVerdicts(body, a, model) : {})),
        })),
      });
    } else if (writes && operationId === "createApiKey") {
      generators.push({
        name: "valid createApiKey",
        arbitrary: fc.nat().map((n) => {
          const apikeyId = `${keyPrefix}-${n.toString(36)}`;
          return {
            operationId,
            request: withKey(operationId, { path: {}, query: [], body: { apikeyId } }),
            judge: judgeWith(operationId, (a) => {
              const verdict = keyCreationVerdict(apikeyId, a);
              return verdict === undefined ? {} : { api_key_uniqueness: verdict };
            }),
          };
        }),
      });
    }
    // What broken and key-less requests of the operation carry: a machine that does not exist, or our key ids.
    const harmless = operationId === "updateClusterMachine" ? absentMachine : ourKeyIds;
    // One constraint broken: refused with 400 naming the field.
    const sites = requests.mutants(operationId, harmless);
    if (sites.length > 0) {
      generators.push({
        name: `broken ${operationId}`,
        arbitrary: fc.oneof(...sites.map((s) => s.arbitrary)).map((m) => ({
          operationId,
          request: withKey(operationId, m.input),
          judge: judgeWith(operationId, (a) => ({ negative_data_rejection: negativeVerdict(a, m.field, m.site) })),
        })),
      });
    }
    // No usable key: refused with 401, before anything else (a write goes to a machine that does not exist).
    const probe = requests.valid(operationId, harmless);
    const how = fc.oneof(
      fc.constant(["no Authorization", undefined] as const),
      fc.constant(["Basic credentials", "Basic Y29uZm9ybWFuY2U6eA=="] as const),
      fc.constant(["Bearer without a key", "Bearer"] as const),
      fc.constant(["a malformed bearer key", "Bearer not a key"] as const),
      fc.nat().map((n) => ["an unknown key", `Bearer cak_conformance-unknown-${n.toString(36)}`] as const),
    );
    generators.push({
      name: `no usable key ${operationId}`,
      arbitrary: fc.tuple(probe, how).map(([input, [name, authorization]]) => {
        const request = withKey(operationId, input);
        const headers = Object.fromEntries(
          Object.entries(request.headers ?? {}).filter(([k]) => k !== "authorization"),
        );
        return {
          operationId,
          request: { ...request, headers: authorization === undefined ? headers : { ...headers, authorization } },
          judge: judgeWith(operationId, (a) => ({ ignored_auth: authVerdict(a, name) })),
        };
      }),
    });
  }
  return generators;
}

/**
 * Queries at the edges of the query rules (the spec's `x-search-terms`): more than `maxTerms` terms besides the
 * type: term (repeats counted), `maxTerms` and a type: term (allowed), only white space, one type: term more than
 * allowed, an unknown type. Words are the ids the key sees, short
 * enough that the query stays within its 256 characters.
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
