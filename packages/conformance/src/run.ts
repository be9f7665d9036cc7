/**
 * A conformance run: requests generated from the spec (fast-check, seeded) go to a running backend, and every
 * answer is judged by the named checks. A failing check is then shrunk — the request that failed is made smaller
 * by fast-check, sent again each time, until it is as small as still fails — so that the report shows a
 * counterexample a person can read.
 *
 * Every operation of the spec gets valid requests (generated from its schemas, examples and the ids the key
 * sees; the three operations with rules of their own get requests written for those rules), requests with one
 * constraint broken, and requests without a usable key. Safe by default: without `writes` it sends valid requests
 * only to operations that change nothing, and to the others only requests a conforming backend must refuse before
 * changing anything (broken bodies, ids that do not exist, no key). With `writes` it also sends schema-valid
 * PATCHes of the power state and price of one named machine, and PATCHes of its volumes that a conforming backend
 * refuses, restored at the end, creates API keys whose ids start with `conformance-`, and sends valid requests to
 * any other operation that writes, in the project of the writes.
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
import type { Access, Verdicts } from "./checks.js";
import { createGenerators, keyedRequests, keyPrefixOf } from "./generators.js";
import type { Answer, RawRequest } from "./http.js";
import { createJudges, type Judges } from "./judges.js";
import { probeKeys } from "./key-probes.js";
import { searchResourceTypes } from "./operation-shapes.js";
import { createPacing, type Pacing } from "./pacing.js";
import { createRequestArbitraries, type RequestArbitraries } from "./requests.js";
import { readMachine, restoreBody, restoreMachine, type Writes } from "./restore.js";
import { createResults, type Results } from "./results.js";
import { runLoop } from "./run-loop.js";
import { type ConformanceOptions, type Report, randomSeed, runDefaults } from "./run-options.js";
import { shrinkFailures } from "./shrink.js";
import { maxVolumeIds } from "./spec-facts.js";
import { probeUpdates } from "./update-probes.js";
import type { MachineModel } from "./update-rules.js";

export { type ConformanceOptions, type Progress, type Report, randomSeed, runDefaults } from "./run-options.js";

/** A run under way: what it was given, what it sends with, and what it has found so far. */
interface Run {
  options: ConformanceOptions;
  spec: OpenApiDocument;
  requests: RequestArbitraries;
  seed: number;
  operationIds: string[];
  keyed: ReturnType<typeof keyedRequests>;
  agent: HttpAgent;
  pacing: Pacing;
  results: Results;
  notes: string[];
  warnings: string[];
  started: number;
}

/** Runs the checks against the backend and resolves with the report. */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  const run = startRun(options);
  try {
    await checkBackend(run);
  } finally {
    run.agent.destroy();
  }
  const list = run.results.list();
  return {
    baseUrl: options.baseUrl,
    seed: run.seed,
    writes: options.writes !== undefined,
    requests: run.pacing.requests,
    elapsedMs: performance.now() - run.started,
    results: list,
    latency: run.pacing.latency(run.operationIds),
    notes: run.notes,
    warnings: run.warnings,
    passed: list.every((r) => r.failed === 0),
  };
}

/** The run's requests, connection and tally, before anything is sent. */
function startRun(options: ConformanceOptions): Run {
  const spec = options.spec ?? loadSpec();
  const requests = createRequestArbitraries(spec);
  const secure = new URL(options.baseUrl).protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const pacing = createPacing({
    baseUrl: options.baseUrl,
    rate: options.rate ?? runDefaults.rate,
    timeoutMs: options.timeoutMs ?? runDefaults.timeoutMs,
    agent,
  });
  return {
    options,
    spec,
    requests,
    seed: options.seed ?? randomSeed(),
    operationIds: [...requests.shapes.keys()].filter((id) => !options.only || options.only.includes(id)),
    keyed: keyedRequests(requests, options.apiKey),
    agent,
    pacing,
    results: createResults(),
    notes: [],
    warnings: [],
    started: performance.now(),
  };
}

/** The run's steps in turn: what the key sees, the machine, the writes' probes, the generated cases, shrinking, restoring. */
async function checkBackend(run: Run): Promise<void> {
  const { options, spec, seed, operationIds, pacing, results, notes } = run;
  const { writes } = options;
  const { exchange } = pacing;
  // The first requests: the key and what it sees, or the end of the run when the backend cannot be reached.
  const { access, words, note, warning } = await discoverAccess(exchange, run.keyed.search);
  notes.push(note);
  if (warning) run.warnings.push(warning);
  // Compiled once the backend answered, so that a dead one is reported at once.
  const contract = compileContract({ spec });
  const resourceTypes = searchResourceTypes(spec);
  const machine = writes ? await readMachine(exchange, run.keyed.search, writes) : undefined;
  const model: MachineModel | undefined = machine && { machine, fields: machineFields(spec) };
  if (writes && model) await probeWrites(run, createJudges({ contract, access, resourceTypes }), writes, model, access);
  const generators = createGenerators({
    requests: run.requests,
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
    deadline: options.seconds === undefined ? undefined : run.started + options.seconds * 1000,
    exchange,
    stop: () => pacing.unreachable !== undefined,
    onVerdicts(c, verdicts, replay) {
      results.record(c, verdicts, replay);
      options.onProgress?.({
        requests: pacing.requests,
        elapsedMs: performance.now() - run.started,
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
    const restored = await restoreMachine(
      exchange,
      (body) => run.keyed.patch(writes, body),
      writes,
      restoreBody(machine),
    );
    if (restored) notes.push(restored);
  }
  if (writes && operationIds.includes("createApiKey"))
    notes.push(
      `API keys created by this run have ids starting with ${keyPrefixOf(seed)}- (the interface cannot delete keys)`,
    );
}

/** The scripted probes of the writes' rules: the machine's PATCHes, and a new key used at once. */
async function probeWrites(
  run: Run,
  judges: Judges,
  writes: Writes,
  model: MachineModel,
  access: Access | undefined,
): Promise<void> {
  const { withKey, search, patch } = run.keyed;
  const probe = {
    exchange: run.pacing.exchange,
    search,
    judge: (operationId: string, answer: Answer) => judges.judge(operationId)(answer),
    judgeSearch: (query: string, answer: Answer) => judges.search(query)(answer),
    record: (operationId: string, request: RawRequest, verdicts: Verdicts) =>
      run.results.record({ operationId, request }, verdicts),
    note: (text: string) => run.notes.push(text),
  };
  if (run.operationIds.includes("updateClusterMachine"))
    await probeUpdates({
      ...probe,
      writes,
      model,
      maxVolumeIds: maxVolumeIds(run.spec),
      patch: (body) => patch(writes, body),
    });
  if (run.operationIds.includes("createApiKey"))
    await probeKeys({
      ...probe,
      access,
      apikeyId: `${keyPrefixOf(run.seed)}-once-${Date.now().toString(36)}`,
      create: (apikeyId) => withKey("createApiKey", { path: {}, query: [], body: { apikeyId } }),
    });
}

/** The fields of a ClusterMachine the spec lists, which partial_update and update_visibility compare. */
function machineFields(spec: OpenApiDocument): string[] {
  const schemas = spec.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
  return Object.keys(schemas.ClusterMachine?.properties ?? {});
}
