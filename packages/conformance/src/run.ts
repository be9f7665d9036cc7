/**
 * A conformance run: requests generated from the spec (fast-check, seeded) go to a running backend, and every
 * answer is judged by the named checks. A failing check is then shrunk — the request that failed is made smaller
 * by fast-check, sent again each time, until it is as small as still fails — so that the report shows a
 * counterexample a person can read.
 *
 * Safe by default: without `writes` it sends searches, and write requests that a conforming backend must refuse
 * before changing anything (broken bodies, machines that do not exist, no key). With `writes` it also sends
 * schema-valid PATCHes of the power state and price of one named machine, restored at the end, and creates API
 * keys whose ids start with `conformance-`; it never touches another resource.
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { compileContract, loadSpec, type OpenApiDocument } from "@compute-api/contract";
import fc from "fast-check";
import {
  type Access,
  authVerdict,
  type CheckName,
  checks,
  negativeVerdict,
  responseVerdicts,
  searchVerdicts,
  type Verdicts,
} from "./checks.js";
import { type Answer, deadlineMs, type RawRequest, send } from "./http.js";
import { createRequestArbitraries, type RequestInput, searchResourceTypes, toRawRequest } from "./requests.js";

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
  writes?: { projectId: string; machineId: string };
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

/** The first failure of a check on an operation: what was sent, and the smallest request that still fails. */
export interface Failure {
  message: string;
  request: RawRequest;
  shrunk?: { request: RawRequest; message: string; steps: number };
}

/** The counts of one check on one operation. */
export interface CheckResult {
  check: CheckName;
  operationId: string;
  passed: number;
  failed: number;
  failure?: Failure;
}

/** Response times of an operation, in ms. */
export interface Latency {
  operationId: string;
  requests: number;
  p50: number;
  p99: number;
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
  passed: boolean;
}

/** One generated request, with how to judge its answer. */
interface Case {
  operationId: string;
  request: RawRequest;
  judge(answer: Answer): Verdicts;
}

/** A stream of cases: its name, and the arbitrary they come from. */
interface Generator {
  name: string;
  arbitrary: fc.Arbitrary<Case>;
}

/** What a run does when its options do not say: cases per generator, requests a second, ms an answer may take. */
export const runDefaults = { runs: 50, rate: 20, timeoutMs: deadlineMs } as const;

/** A new seed for the generators (a run prints it, so that it can be replayed). */
export const randomSeed = (): number => Math.floor(Math.random() * 2 ** 31);

/** An id that no backend has: the machine and project of the writes a safe run sends. */
const nowhere = { projectId: "conformance-no-such-project", id: "conformance-no-such-machine" };

/** Runs the checks against the backend and resolves with the report. */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  const spec = options.spec ?? loadSpec();
  const contract = compileContract({ spec });
  const requests = createRequestArbitraries(spec);
  const seed = options.seed ?? randomSeed();
  const timeoutMs = options.timeoutMs ?? runDefaults.timeoutMs;
  const interval = 1000 / (options.rate ?? runDefaults.rate);
  const secure = new URL(options.baseUrl).protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const started = performance.now();
  const resourceTypes = searchResourceTypes(spec);
  const operationIds = [...requests.shapes.keys()].filter((id) => !options.only || options.only.includes(id));
  const notes: string[] = [];

  // Sending, paced to the rate, timed per operation, counted.
  let requestCount = 0;
  let nextAt = 0;
  const durations = new Map<string, number[]>();
  async function exchange(operationId: string, request: RawRequest): Promise<Answer> {
    const wait = nextAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    nextAt = Math.max(performance.now(), nextAt) + interval;
    const at = performance.now();
    const answer = await send(options.baseUrl, request, timeoutMs, agent).catch(
      (error: Error): Answer => ({ status: 0, headers: {}, text: `no answer: ${error.message}`, json: undefined }),
    );
    const list = durations.get(operationId) ?? [];
    list.push(performance.now() - at);
    durations.set(operationId, list);
    requestCount++;
    return answer;
  }

  // The verdicts, by check and operation; the first failure of each is kept to be shrunk.
  const results = new Map<string, CheckResult & { replay?: { generator: Generator; seed: number; index: number } }>();
  const record = (c: Case, verdicts: Verdicts, replay: { generator: Generator; seed: number; index: number }) => {
    for (const [check, verdict] of Object.entries(verdicts) as [CheckName, string | null][]) {
      const key = `${check} ${c.operationId}`;
      const result = results.get(key) ?? { check, operationId: c.operationId, passed: 0, failed: 0 };
      if (verdict === null) result.passed++;
      else {
        result.failed++;
        if (!result.failure) Object.assign(result, { failure: { message: verdict, request: c.request }, replay });
      }
      results.set(key, result);
    }
    options.onProgress?.({
      requests: requestCount,
      elapsedMs: performance.now() - started,
      failing: [...results.values()].filter((r) => r.failed > 0).length,
    });
  };
  /**
   * Judges an answer by the response checks and `more`; status 0 means no answer at all (a dropped connection,
   * no answer in time), which fails not_a_server_error and nothing else can be said of.
   */
  const judgeWith =
    (operationId: string, more: (answer: Answer) => Verdicts = () => ({})) =>
    (answer: Answer): Verdicts =>
      answer.status === 0
        ? { not_a_server_error: answer.text }
        : { ...responseVerdicts(contract, operationId, answer), ...more(answer) };

  const withKey = (operationId: string, input: RequestInput, key = options.apiKey) =>
    toRawRequest(requests.shapeOf(operationId), input, key);
  /** With writes: a PATCH of the one machine the run may write to. */
  const patchOurMachine = (writes: NonNullable<ConformanceOptions["writes"]>, body: unknown) =>
    withKey("updateClusterMachine", { path: { projectId: writes.projectId, id: writes.machineId }, query: [], body });

  // What the caller may see, from its own searches of projects and billing accounts (read-only).
  const search = (query: string) => withKey("searchResources", { path: {}, query: [["query", query]] });
  let access: Access | undefined;
  const words: string[] = [];
  if (operationIds.includes("searchResources")) {
    const seen = { projects: new Set<string>(), billingAccounts: new Set<string>(), complete: true };
    for (const type of ["project", "billingAccount"]) {
      const answer = await exchange("searchResources", search(`type:${type}`));
      if (answer.status === 401)
        throw new Error(`the backend refused the API key (401 to a search): ${answer.text.slice(0, 200)}`);
      const found = (answer.json as { results?: { resourceName?: string }[] } | undefined)?.results ?? [];
      if (answer.status !== 200 || found.length >= 100) seen.complete = false;
      for (const r of found) {
        const [collection, id = ""] = String(r.resourceName).split("/");
        (collection === "billingAccounts" ? seen.billingAccounts : seen.projects).add(id);
        words.push(id);
      }
    }
    access = seen;
    notes.push(
      seen.complete
        ? `the key sees ${seen.projects.size} projects and ${seen.billingAccounts.size} billing accounts; every search result is held to them`
        : "the key's projects or billing accounts could not all be listed (a search failed or gave 100 results), so search_access was not checked",
    );
  }

  // With writes: the machine's power state and price now, to be restored at the end.
  let restore: Record<string, unknown> | undefined;
  const writes = options.writes;
  if (writes) {
    const answer = await exchange("searchResources", search(`type:cluster ${writes.projectId}`));
    type Machine = { id?: string; powerState?: string; priceHr?: { value: string } };
    const clusters =
      (answer.json as { results?: { cluster?: { projectId?: string; machines?: Machine[] } }[] } | undefined)
        ?.results ?? [];
    const machine = clusters
      .flatMap((r) => (r.cluster?.projectId === writes.projectId ? (r.cluster.machines ?? []) : []))
      .find((m) => m.id === writes.machineId);
    if (!machine) {
      throw new Error(
        `--writes: machine ${writes.machineId} is not among the clusters of ${writes.projectId} that search shows the key, so it could not be restored afterwards; nothing was written`,
      );
    }
    restore = {
      ...(machine.powerState && machine.powerState !== "MACHINE_POWER_STATE_UNSPECIFIED"
        ? { powerState: machine.powerState }
        : {}),
      ...(machine.priceHr ? { priceHr: machine.priceHr } : {}),
    };
  }

  // The generators: valid requests, one constraint broken, and no usable key, for each operation.
  const generators: Generator[] = [];
  // Broken requests and those without a key go to a machine that does not exist, and the key ids they carry
  // have the run's prefix: a backend that accepts what it must refuse still changes nothing that is not ours.
  const absentMachine = { path: { projectId: fc.constant(nowhere.projectId), id: fc.constant(nowhere.id) } };
  const keyPrefix = `conformance-${seed.toString(36)}`;
  const ourKeyIds = {
    body: (path: readonly string[]) =>
      path.join("/") === "apikeyId" ? fc.nat().map((n) => `${keyPrefix}-${n.toString(36)}`) : undefined,
  };
  for (const operationId of operationIds) {
    const judge = judgeWith(operationId);
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
        arbitrary: query.map((q) => ({
          operationId,
          request: search(q),
          judge: judgeWith(operationId, (a) => searchVerdicts(a, q, access, resourceTypes)),
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
        arbitrary: bodies.map((body) => ({ operationId, request: patchOurMachine(writes, body), judge })),
      });
    } else if (writes && operationId === "createApiKey") {
      generators.push({
        name: "valid createApiKey",
        arbitrary: fc.nat().map((n) => ({
          operationId,
          request: withKey(operationId, {
            path: {},
            query: [],
            body: { apikeyId: `${keyPrefix}-${n.toString(36)}` },
          }),
          judge,
        })),
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

  // The run: the generators in turn, in rounds of cases, until the runs are done or the time is up.
  const round = 10;
  const runs = options.runs ?? runDefaults.runs;
  const deadline = options.seconds === undefined ? undefined : started + options.seconds * 1000;
  const seedOf = (g: number, r: number) => (seed + g * 7919 + r * 104_729) % 2 ** 31;
  for (let r = 0; deadline !== undefined || r * round < runs; r++) {
    const batches = generators.map((generator, g) => {
      const count = deadline === undefined ? Math.min(round, runs - r * round) : round;
      return fc
        .sample(generator.arbitrary, { seed: seedOf(g, r), numRuns: count })
        .map((c, index) => ({ c, replay: { generator, seed: seedOf(g, r), index } }));
    });
    for (let i = 0; i < round; i++) {
      for (const batch of batches) {
        const item = batch[i];
        if (!item || (deadline !== undefined && performance.now() > deadline)) continue;
        const answer = await exchange(item.c.operationId, item.c.request);
        record(item.c, item.c.judge(answer), item.replay);
      }
    }
    if (deadline !== undefined && performance.now() > deadline) break;
  }

  // Shrinking: each first failure replayed from its seed and case, and made as small as still fails.
  const shrinkUntil = performance.now() + 30_000;
  for (const result of results.values()) {
    if (!result.replay || !result.failure || performance.now() > shrinkUntil) continue;
    const { generator, seed: replaySeed, index } = result.replay;
    let last: { request: RawRequest; message: string } | undefined;
    const details = await fc.check(
      fc.asyncProperty(generator.arbitrary, async (c) => {
        const verdict = c.judge(await exchange(c.operationId, c.request))[result.check];
        if (verdict) last = { request: c.request, message: verdict };
        return !verdict;
      }),
      {
        seed: replaySeed,
        path: String(index),
        interruptAfterTimeLimit: Math.max(1000, Math.min(10_000, shrinkUntil - performance.now())),
        markInterruptAsFailure: false,
      },
    );
    if (details.failed && last) result.failure.shrunk = { ...last, steps: details.numShrinks };
  }

  // With writes: the machine as it was.
  if (writes && restore && Object.keys(restore).length > 0) {
    const answer = await exchange("updateClusterMachine", patchOurMachine(writes, restore));
    notes.push(
      answer.status === 200
        ? `restored ${writes.projectId}/${writes.machineId} to ${JSON.stringify(restore)}`
        : `could not restore ${writes.projectId}/${writes.machineId} to ${JSON.stringify(restore)}: answered ${answer.status}`,
    );
  }
  if (writes && operationIds.includes("createApiKey"))
    notes.push(`API keys created by this run have ids starting with ${keyPrefix}- (the interface cannot delete keys)`);
  agent.destroy();

  const order = Object.keys(checks);
  const list = [...results.values()]
    .map(({ replay: _replay, ...result }) => result)
    .sort((a, b) => order.indexOf(a.check) - order.indexOf(b.check) || a.operationId.localeCompare(b.operationId));
  /** The p-th percentile of values sorted in ascending order. */
  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
  return {
    baseUrl: options.baseUrl,
    seed,
    writes: writes !== undefined,
    requests: requestCount,
    elapsedMs: performance.now() - started,
    results: list,
    latency: operationIds.map((operationId) => {
      const sorted = [...(durations.get(operationId) ?? [])].sort((a, b) => a - b);
      return { operationId, requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    }),
    notes,
    passed: list.every((r) => r.failed === 0),
  };
}
