/**
 * A conformance run: requests generated from the spec (fast-check, seeded) go to a running backend, and every
 * answer is judged by the named checks. A failing check is then shrunk — the request that failed is made smaller
 * by fast-check, sent again each time, until it is as small as still fails — so that the report shows a
 * counterexample a person can read.
 *
 * Safe by default: without `writes` it sends searches, and write requests that a conforming backend must refuse
 * before changing anything (broken bodies, machines that do not exist, no key). With `writes` it also sends
 * schema-valid PATCHes of the power state and price of one named machine, and PATCHes of its volumes that a
 * conforming backend refuses, restored at the end, and creates API keys whose ids start with `conformance-`; it
 * never touches another resource.
 *
 * The steps, each in its own module: what the key can access (access.ts, the run's first requests: a backend that
 * cannot be reached stops the run there), the machine to restore (restore.ts), the scripted probes of the rules
 * of writes (update-probes.ts, key-probes.ts), the generators (generators.ts), the loop (run-loop.ts) sending at a
 * pace (pacing.ts), the tally (results.ts) and the shrinking of its failures (shrink.ts).
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { compileContract, loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { discoverAccess } from "./access.js";
import type { Verdicts } from "./checks.js";
import { createGenerators, keyedRequests, keyPrefixOf } from "./generators.js";
import { type Answer, deadlineMs, type RawRequest } from "./http.js";
import { createJudges } from "./judges.js";
import { probeKeys } from "./key-probes.js";
import { searchResourceTypes } from "./operation-shapes.js";
import { createPacing, type Latency } from "./pacing.js";
import { createRequestArbitraries } from "./requests.js";
import { readMachine, restoreBody, restoreMachine, type Writes } from "./restore.js";
import { type CheckResult, createResults } from "./results.js";
import { runLoop } from "./run-loop.js";
import { shrinkFailures } from "./shrink.js";
import { probeUpdates } from "./update-probes.js";
import type { MachineModel } from "./update-rules.js";

/** What a run is given. */
export interface ConformanceOptions {
  /** The backend, such as `https://staging.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** A key of the backend, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Cases per generator (default 50), unless `seconds` bounds the run instead. */
  runs?: number;
  /** Generate and send cases for this many seconds. */
  seconds?: number;
  /** Seed of the generators; default a new one, printed, so that a run can be replayed. */
  seed?: number;
  /** Also send schema-valid writes: PATCHes of this machine (restored at the end) and new API keys. */
  writes?: Writes;
  /** Only these operations (operationIds). */
  only?: readonly string[];
  /** Requests a second at most (default 20). */
  rate?: number;
  /** How long one answer may take, in ms (default 10000). */
  timeoutMs?: number;
  /** The spec; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /** Hears the run's progress after each request. */
  onProgress?: (progress: Progress) => void;
}

/** How far a run is. */
export interface Progress {
  requests: number;
  elapsedMs: number;
  /** Checks, by operation, that failed at least once so far. */
  failing: number;
}

/** What a run found. */
export interface Report {
  baseUrl: string;
  seed: number;
  writes: boolean;
  requests: number;
  elapsedMs: number;
  results: CheckResult[];
  latency: Latency[];
  /** What the run did besides checking: what it learned, what it restored, what it could not do. */
  notes: string[];
  /** What makes the checks prove less than they seem to, such as a key that sees nothing; not a failure. */
  warnings: string[];
  passed: boolean;
}

/** What a run does when its options do not say: cases per generator, requests a second, ms an answer may take. */
export const runDefaults = { runs: 50, rate: 20, timeoutMs: deadlineMs } as const;

/** A new seed for the generators (a run prints it, so that it can be replayed). */
export const randomSeed = (): number => Math.floor(Math.random() * 2 ** 31);

/** Runs the checks against the backend and resolves with the report. */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  const spec = options.spec ?? loadSpec();
  const requests = createRequestArbitraries(spec);
  const seed = options.seed ?? randomSeed();
  const { writes } = options;
  const started = performance.now();
  const operationIds = [...requests.shapes.keys()].filter((id) => !options.only || options.only.includes(id));
  const { withKey, search, patch } = keyedRequests(requests, options.apiKey);
  const secure = new URL(options.baseUrl).protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const pacing = createPacing({
    baseUrl: options.baseUrl,
    rate: options.rate ?? runDefaults.rate,
    timeoutMs: options.timeoutMs ?? runDefaults.timeoutMs,
    agent,
  });
  const { exchange } = pacing;
  const results = createResults();
  const notes: string[] = [];
  const warnings: string[] = [];
  try {
    // The first requests: the key and what it sees, or the end of the run when the backend cannot be reached.
    const { access, words, note, warning } = await discoverAccess(exchange, search);
    notes.push(note);
    if (warning) warnings.push(warning);
    // Compiled once the backend answered, so that a dead one is reported at once.
    const contract = compileContract({ spec });
    const resourceTypes = searchResourceTypes(spec);
    const machine = writes ? await readMachine(exchange, search, writes) : undefined;
    const model: MachineModel | undefined = machine && { machine, fields: machineFields(spec) };
    if (writes && model) {
      const judges = createJudges({ contract, access, resourceTypes });
      const probe = {
        exchange,
        search,
        judge: (operationId: string, answer: Answer) => judges.judge(operationId)(answer),
        judgeSearch: (query: string, answer: Answer) => judges.search(query)(answer),
        record: (operationId: string, request: RawRequest, verdicts: Verdicts) =>
          results.record({ operationId, request }, verdicts),
        note: (text: string) => notes.push(text),
      };
      if (operationIds.includes("updateClusterMachine"))
        await probeUpdates({ ...probe, writes, model, patch: (body) => patch(writes, body) });
      if (operationIds.includes("createApiKey"))
        await probeKeys({
          ...probe,
          access,
          apikeyId: `${keyPrefixOf(seed)}-once-${Date.now().toString(36)}`,
          create: (apikeyId) => withKey("createApiKey", { path: {}, query: [], body: { apikeyId } }),
        });
    }
    const generators = createGenerators({
      requests,
      contract,
      operationIds,
      apiKey: options.apiKey,
      seed,
      writes,
      model,
      access,
      words,
      resourceTypes,
    });
    await runLoop({
      generators,
      seed,
      runs: options.runs ?? runDefaults.runs,
      deadline: options.seconds === undefined ? undefined : started + options.seconds * 1000,
      exchange,
      stop: () => pacing.unreachable !== undefined,
      onVerdicts(c, verdicts, replay) {
        results.record(c, verdicts, replay);
        options.onProgress?.({
          requests: pacing.requests,
          elapsedMs: performance.now() - started,
          failing: results.failing(),
        });
      },
    });
    if (pacing.unreachable === undefined) await shrinkFailures(results.pending(), exchange);
    else
      notes.push(
        `the backend could not be reached after ${pacing.requests} requests (${pacing.unreachable}): the run stopped there, and nothing was shrunk`,
      );
    if (writes && machine) {
      const note = await restoreMachine(exchange, (body) => patch(writes, body), writes, restoreBody(machine));
      if (note) notes.push(note);
    }
    if (writes && operationIds.includes("createApiKey"))
      notes.push(
        `API keys created by this run have ids starting with ${keyPrefixOf(seed)}- (the interface cannot delete keys)`,
      );
  } finally {
    agent.destroy();
  }
  const list = results.list();
  return {
    baseUrl: options.baseUrl,
    seed,
    writes: writes !== undefined,
    requests: pacing.requests,
    elapsedMs: performance.now() - started,
    results: list,
    latency: pacing.latency(operationIds),
    notes,
    warnings,
    passed: list.every((r) => r.failed === 0),
  };
}

/** The fields of a ClusterMachine the spec lists, which partial_update and update_visibility compare. */
function machineFields(spec: OpenApiDocument): string[] {
  const schemas = spec.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
  return Object.keys(schemas.ClusterMachine?.properties ?? {});
}
