/**
 * What every generator of a run is made from: the cases it yields, the options of the run, and the context built
 * once from them — requests with the run's key, the judges, and the values that make a request harmless.
 */
import type { Contract, OpenApiDocument } from "@compute-api/contract";
import fc from "fast-check";
import type { Access, Verdicts } from "./checks.js";
import type { Answer, RawRequest } from "./http.js";
import { createJudges, type Judges } from "./judges.js";
import type { Biases, RequestArbitraries, RequestInput } from "./requests.js";
import { toRawRequest } from "./requests.js";
import type { Writes } from "./restore.js";
import { nodeAt } from "./schema-node.js";
import type { MachineModel } from "./update-rules.js";

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

/** The options, and what the generators share. */
export interface GeneratorContext extends GeneratorOptions {
  spec: OpenApiDocument;
  withKey: ReturnType<typeof keyedRequests>["withKey"];
  search: ReturnType<typeof keyedRequests>["search"];
  patch: ReturnType<typeof keyedRequests>["patch"];
  judges: Judges;
  /** The prefix of the ids of the keys the run creates. */
  keyPrefix: string;
  /** Biases that make a request of the operation harmless, should a backend accept what it must refuse. */
  harmless(operationId: string): Biases;
}

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

/** The context of the generators of a run. */
export function generatorContext(options: GeneratorOptions): GeneratorContext {
  const { requests, contract, access, resourceTypes } = options;
  const keyPrefix = keyPrefixOf(options.seed);
  const ourKeyIds = (path: readonly string[]) =>
    path.join("/") === "apikeyId" ? fc.nat().map((n) => `${keyPrefix}-${n.toString(36)}`) : undefined;
  return {
    ...options,
    ...keyedRequests(requests, options.apiKey),
    spec: requests.arbitraries.document,
    judges: createJudges({ contract, access, resourceTypes }),
    keyPrefix,
    // Path parameters name what no backend has (`conformance-no-such-project`), where their schema allows it, and
    // key ids carry the run's prefix.
    harmless: (operationId) => {
      const path = requests
        .shapeOf(operationId)
        .path.map((p) => [p.name, `conformance-no-such-${p.name.replace(/Id$/, "")}`, p.schema] as const)
        .filter(([, id, schema]) => requests.arbitraries.isValid([nodeAt(requests.arbitraries.document, schema)], id))
        .map(([name, id]) => [name, fc.constant(id)]);
      return { path: Object.fromEntries(path), body: ourKeyIds };
    },
  };
}
