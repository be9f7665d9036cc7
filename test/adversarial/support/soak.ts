/**
 * The soak: the stub and a gateway in front of it, each in its own process on 127.0.0.1, and many concurrent
 * clients — half straight to the stub, half through the gateway — each mixing all three operations, valid
 * (support/oracle.ts) and with one constraint broken, for a fixed time. Every answer is checked as it arrives.
 * Afterwards: every acknowledged PATCH is visible in its machine, its cluster and search (the last acknowledged
 * write of a machine wins), every created key works, and each server's RSS grew within the bound after warm-up.
 *
 * The clients are a plain keep-alive loop rather than autocannon: autocannon drops the requests in flight when
 * its time is up, and a write whose answer never came cannot be checked.
 */
import { type ChildProcess, fork } from "node:child_process";
import { Agent } from "node:http";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { parseDecimal } from "@compute-api/client";
import { type Answer, type MutantInput, type RequestInput, send, toRawRequest } from "@compute-api/conformance/testing";
import { errorBodyProblems } from "@compute-api/test-support";
import fc from "fast-check";
import { clusterState, violationsOf } from "./checks.js";
import { facts } from "./facts.js";
import {
  createKeyProblems,
  keyCases,
  type Outcome,
  patchCases,
  patchProblems,
  requests,
  searchCases,
  searchProblems,
} from "./oracle.js";
import type { FromServer } from "./soak-server.js";
import { type UserId, userKeys } from "./targets.js";

/** How long and how hard. */
export interface SoakOptions {
  seconds: number;
  /** Concurrent clients, half straight to the stub and half through the gateway. */
  clients: number;
  /** Seconds of load before the "after warm-up" memory reading; default a third of the run, at least 2. */
  warmupSeconds?: number;
  /** Most RSS growth of a server from after warm-up to the end, in MiB. */
  rssBoundMiB: number;
  /** Most growth of a server's JS heap after a full GC from after warm-up to the end, in MiB (a leak of objects). */
  heapBoundMiB: number;
  /** Seed of the request pools. */
  seed: number;
  /** Share of requests with one constraint broken. */
  invalidShare?: number;
}

type Operation = "updateClusterMachine" | "createApiKey" | "searchResources";
type Via = "direct" | "gateway";

/** What was seen for one (target, operation). */
export interface Row {
  via: Via;
  operation: Operation;
  requests: number;
  statuses: Record<string, number>;
  latenciesMs: number[];
}

/** Memory of one server process at the checkpoints, in bytes. */
export interface MemoryRow {
  process: "stub" | "gateway";
  start: number;
  afterWarmup: number;
  end: number;
  /** Heap in use after a full GC, after warm-up and at the end: growth here would be a leak of objects. */
  heapAfterWarmup: number;
  heapEnd: number;
  /** Memory outside the JS heap (Buffers and the like) after a full GC, after warm-up and at the end. */
  externalAfterWarmup: number;
  externalEnd: number;
  /** RSS after a full GC every few seconds, from the start. */
  samples: number[];
}

/** A check of the soak. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Everything the soak found. */
export interface SoakReport {
  options: SoakOptions & { warmupSeconds: number };
  elapsedSeconds: number;
  rows: Row[];
  memory: MemoryRow[];
  checks: Check[];
  ok: boolean;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Starts a server process and resolves with it and its URL once it is listening. */
function startServerProcess(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(here("./soak-server.ts"), args, {
    execArgv: ["--import", "tsx", "--conditions=@compute-api/source", "--expose-gc"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`soak server ${args.join(" ")} exited with ${code}`)));
    child.on("message", (m: FromServer) => {
      if (m.type === "ready") resolve({ child, url: m.url });
    });
  });
}

/** The server's memory after a full GC. */
function memoryOf(child: ChildProcess): Promise<{ rss: number; heapUsed: number; external: number }> {
  return new Promise((resolve) => {
    const listener = (m: FromServer) => {
      if (m.type !== "memory") return;
      child.off("message", listener);
      resolve(m);
    };
    child.on("message", listener);
    child.send({ type: "memory" });
  });
}

/** A request of the soak: what to send, as whom, and how to judge the answer. */
interface Planned {
  operation: Operation;
  user: UserId;
  input: RequestInput;
  /** For a request with a constraint broken: the field its 400 must name. */
  mutant?: MutantInput;
}

/** An acknowledged PATCH: when it was sent and answered, and the machine it answered with. */
interface Write {
  start: number;
  end: number;
  /** The fields it set. */
  body: Record<string, unknown>;
  /** The whole machine it was answered with. */
  machine: Record<string, unknown>;
}

/** The fields of a machine a PATCH sets. */
const writableFields = ["powerState", "state", "priceHr", "volumeIds"] as const;

/**
 * Every acknowledged answer of a machine read as a register per field: the value of each field must have been
 * written by a write that may have come last before the read — one that started before the read ended and that
 * no other write of the field certainly followed (ended before it started and before the read started) — or be
 * the initial value while no write of the field had certainly ended. A write lost in the middle of the run, then
 * hidden by later writes of other fields, shows here.
 */
function registerViolations(
  writes: Write[],
  initial: Record<string, unknown>,
  reads: { start: number; end: number; machine: Record<string, unknown> }[],
): string[] {
  const out: string[] = [];
  for (const field of writableFields) {
    const writers = writes.filter((w) => field in w.body);
    for (const read of reads) {
      // The latest start of a write of the field that certainly ended before the read began.
      const certain = writers
        .filter((w) => w.end < read.start)
        .reduce((latest, w) => Math.max(latest, w.start), -Infinity);
      const allowed = writers
        .filter((w) => w.start < read.end && !(w.end < certain))
        .map((w) => JSON.stringify(w.machine[field]));
      if (certain === -Infinity) allowed.push(JSON.stringify(initial[field]));
      const seen = JSON.stringify(read.machine[field]);
      if (!allowed.includes(seen))
        out.push(
          `${field} ${seen} read at ${read.start.toFixed(0)} ms was overwritten or never written (could be ${[...new Set(allowed)].join(" or ").slice(0, 160)})`,
        );
    }
  }
  return out;
}

/** p-th percentile of sorted numbers. */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** A decimal written canonically (`-12e3`), so that equal numbers are equal strings. */
const canonical = (d: { sign: number; coefficient: string; exponent: bigint }) =>
  d.sign === 0 ? "0" : `${d.sign < 0 ? "-" : ""}${d.coefficient}e${d.exponent}`;

/** Whether a total is the exact sum of the values (BigInt digits; the stub keeps a cluster's prices within 256 digits of each other). */
function isExactSum(total: string, values: string[]): boolean {
  const parts = values.map(parseDecimal).filter((d) => d.sign !== 0);
  if (parts.length === 0) return canonical(parseDecimal(total)) === "0";
  let low = parts[0]?.exponent ?? 0n;
  for (const d of parts) if (d.exponent < low) low = d.exponent;
  if (parts.some((d) => d.exponent - low > 10_000n)) return false;
  let sum = parts.reduce((acc, d) => acc + BigInt(d.sign) * BigInt(d.coefficient) * 10n ** (d.exponent - low), 0n);
  if (sum === 0n) return canonical(parseDecimal(total)) === "0";
  while (sum % 10n === 0n) {
    sum /= 10n;
    low += 1n;
  }
  const negative = sum < 0n;
  return (
    canonical(parseDecimal(total)) ===
    canonical({ sign: negative ? -1 : 1, coefficient: (negative ? -sum : sum).toString(), exponent: low })
  );
}

/** Runs the soak and returns its report (it never throws for a failed check; `ok` says). */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const warmupSeconds = options.warmupSeconds ?? Math.max(2, Math.round(options.seconds / 3));
  const invalidShare = options.invalidShare ?? 0.25;
  const stub = await startServerProcess(["stub"]);
  const gateway = await startServerProcess(["gateway", stub.url]).catch((error: unknown) => {
    stub.child.kill();
    throw error;
  });
  const urls: Record<Via, string> = { direct: stub.url, gateway: gateway.url };
  try {
    return await load(options, warmupSeconds, invalidShare, urls, { stub: stub.child, gateway: gateway.child });
  } finally {
    for (const { child } of [gateway, stub]) {
      child.send({ type: "stop" });
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
    }
  }
}

async function load(
  options: SoakOptions,
  warmupSeconds: number,
  invalidShare: number,
  urls: Record<Via, string>,
  processes: Record<"stub" | "gateway", ChildProcess>,
): Promise<SoakReport> {
  // Request pools, drawn once from the spec's arbitraries with the seed.
  const pool = <T>(arbitrary: fc.Arbitrary<T>, n = 400) => fc.sample(arbitrary, { numRuns: n, seed: options.seed });
  const realMachines = {
    path: { projectId: fc.constantFrom(...facts.projectIds), id: fc.constantFrom(...facts.machines.map((m) => m.id)) },
  };
  const mutants = (op: Operation) =>
    pool(fc.oneof(...requests.mutants(op, op === "updateClusterMachine" ? realMachines : {}).map((s) => s.arbitrary)));
  const pools = {
    valid: { updateClusterMachine: pool(patchCases), createApiKey: pool(keyCases), searchResources: pool(searchCases) },
    invalid: {
      updateClusterMachine: mutants("updateClusterMachine"),
      createApiKey: mutants("createApiKey"),
      searchResources: mutants("searchResources"),
    },
  };

  const rows = new Map<string, Row>();
  const rowOf = (via: Via, operation: Operation) => {
    const key = `${via} ${operation}`;
    let row = rows.get(key);
    if (!row) {
      row = { via, operation, requests: 0, statuses: {}, latenciesMs: [] };
      rows.set(key, row);
    }
    return row;
  };
  const unexpected: string[] = [];
  let unexpectedCount = 0;
  let fiveXx = 0;
  let failures = 0;
  const writes = new Map<string, Write[]>();
  /** Key ids each user has (both targets share the stub), and the keys created. */
  const keyIds = new Map(facts.users.map((u) => [u, new Set(facts.initialKeyIds(u))]));
  const createdKeys: { user: UserId; key: string }[] = [];
  let fresh = 0;

  const machineKey = (projectId: string, id: string) => `${projectId}/${id}`;
  const initial = new Map<string, unknown>();
  for (const m of facts.machines)
    initial.set(machineKey(m.projectId, m.id), await machineAsSearched(urls.direct, m.projectId, m.id, m.clusterId));

  /** The next request of a client: an operation, valid or not, from the pools. */
  const plan = (n: number): Planned => {
    const operation =
      (["updateClusterMachine", "searchResources", "updateClusterMachine", "searchResources", "createApiKey"] as const)[
        n % 5
      ] ?? "searchResources";
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)] as T;
    if (Math.random() < invalidShare) {
      const mutant = pick(pools.invalid[operation]);
      return { operation, user: "alice", input: mutant.input, mutant };
    }
    const valid = pick(pools.valid[operation]);
    if (operation !== "createApiKey") return { operation, user: valid.user, input: valid.input };
    // Mostly ids never used (a unique suffix on the drawn id), else an id the user already has: 200 or 409, known in advance.
    const owned = [...(keyIds.get(valid.user) ?? [])];
    const drawn = (valid.input.body as { apikeyId: string }).apikeyId;
    const apikeyId = Math.random() < 0.1 ? pick(owned) : `${drawn.slice(0, 50)}-${(fresh++).toString(36)}`;
    return { operation, user: valid.user, input: { ...valid.input, body: { apikeyId } } };
  };

  const judge = (p: Planned, answer: Answer): string[] => {
    if (p.mutant) {
      const problems = errorBodyProblems(answer, [400]);
      if (!violationsOf(answer.json).some((v) => v.field === p.mutant?.field))
        problems.push(`no violation names ${JSON.stringify(p.mutant.field)}`);
      return problems;
    }
    const outcome: Outcome = { status: answer.status, body: answer.json };
    if (p.operation === "updateClusterMachine") return patchProblems(p.user, p.input, outcome);
    if (p.operation === "searchResources") return searchProblems(p.user, p.input, outcome);
    return createKeyProblems(p.user, p.input, outcome, keyIds.get(p.user) ?? new Set());
  };

  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const agents: Record<Via, Agent> = {
    direct: new Agent({ keepAlive: true }),
    gateway: new Agent({ keepAlive: true }),
  };

  async function client(index: number): Promise<void> {
    const via: Via = index % 2 === 0 ? "direct" : "gateway";
    for (let n = index; performance.now() < deadline; n++) {
      const p = plan(n);
      const raw = toRawRequest(requests.shapeOf(p.operation), p.input, userKeys[p.user]);
      const start = performance.now();
      let answer: Answer;
      try {
        answer = await send(urls[via], raw, 10_000, agents[via]);
      } catch (error) {
        failures++;
        unexpected.push(`${via} ${p.operation}: ${(error as Error).message}`);
        continue;
      }
      const end = performance.now();
      const row = rowOf(via, p.operation);
      row.requests++;
      row.statuses[answer.status] = (row.statuses[answer.status] ?? 0) + 1;
      row.latenciesMs.push(end - start);
      if (answer.status >= 500) fiveXx++;
      const problems = judge(p, answer);
      if (problems.length > 0) {
        unexpectedCount++;
        if (unexpected.length < 10)
          unexpected.push(
            `${via} ${p.operation} ${raw.method} ${raw.path.slice(0, 120)} ${String(raw.body ?? "").slice(0, 120)} → ${answer.status}: ${problems.join("; ")}`,
          );
      }
      if (!p.mutant && answer.status === 200) {
        if (p.operation === "updateClusterMachine") {
          const key = machineKey(p.input.path.projectId ?? "", p.input.path.id ?? "");
          writes.set(key, [
            ...(writes.get(key) ?? []),
            {
              start,
              end,
              body: p.input.body as Record<string, unknown>,
              machine: answer.json as Record<string, unknown>,
            },
          ]);
        } else if (p.operation === "createApiKey") {
          keyIds.get(p.user)?.add((p.input.body as { apikeyId: string }).apikeyId);
          createdKeys.push({ user: p.user, key: (answer.json as { key: string }).key });
        }
      }
    }
  }

  const memory = {
    start: await both(processes),
    afterWarmup: undefined as Awaited<ReturnType<typeof both>> | undefined,
  };
  const warm = setTimeout(() => void both(processes).then((m) => (memory.afterWarmup = m)), warmupSeconds * 1000);
  const samples: Awaited<ReturnType<typeof both>>[] = [];
  const sampling = setInterval(
    () => void both(processes).then((m) => samples.push(m)),
    sampleEverySeconds(options.seconds) * 1000,
  );
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  clearTimeout(warm);
  clearInterval(sampling);
  const elapsedSeconds = (performance.now() - started) / 1000;
  for (const agent of Object.values(agents)) agent.destroy();
  const end = await both(processes);
  const afterWarmup = memory.afterWarmup ?? end;

  // Every acknowledged PATCH: each answer of a machine is consistent, field by field, with the writes that may
  // have come before it; the final machine — in its cluster as search shows it, straight and through the gateway,
  // and as a no-op PATCH answers — is the answer of an acknowledged write that no other acknowledged write started
  // after; a machine nobody changed is as it was. The cluster's totals are the exact sums.
  const lost: string[] = [];
  for (const m of facts.machines) {
    const key = machineKey(m.projectId, m.id);
    const acknowledged = writes.get(key) ?? [];
    const registers = registerViolations(
      acknowledged,
      (initial.get(key) ?? {}) as Record<string, unknown>,
      acknowledged,
    );
    lost.push(...registers.slice(0, 3).map((v) => `${key}: ${v}`));
    const candidates = acknowledged
      .filter((w) => !acknowledged.some((other) => other.start > w.end))
      .map((w) => JSON.stringify(w.machine));
    const expected = acknowledged.length > 0 ? candidates : [JSON.stringify(initial.get(key))];
    const seen = {
      direct: await machineAsSearched(urls.direct, m.projectId, m.id, m.clusterId),
      gateway: await machineAsSearched(urls.gateway, m.projectId, m.id, m.clusterId),
      patched: await machineAsPatched(urls.direct, m.projectId, m.id),
    };
    for (const [where, machine] of Object.entries(seen)) {
      if (!expected.includes(JSON.stringify(machine)))
        lost.push(`${key} (${where}): ${JSON.stringify(machine).slice(0, 200)} is not the last acknowledged write`);
    }
    const cluster = await clusterAsSearched(urls.direct, m.projectId, m.clusterId);
    const prices = (cluster.machines ?? []).flatMap((x) => (x.priceHr ? [x.priceHr.value] : []));
    if (!cluster.totalMachinePriceHr || !isExactSum(cluster.totalMachinePriceHr.value, prices))
      lost.push(
        `${m.clusterId}: totalMachinePriceHr ${cluster.totalMachinePriceHr?.value} is not the sum of ${prices.join(" + ")}`,
      );
  }

  // Every created key works, for its own user.
  const brokenKeys: string[] = [];
  for (let i = 0; i < createdKeys.length; i += 16) {
    await Promise.all(
      createdKeys.slice(i, i + 16).map(async ({ user, key }) => {
        const answer = await send(urls.gateway, {
          method: "GET",
          path: "/v1/resources/search?query=type%3Aproject",
          headers: { authorization: `Bearer ${key}` },
        });
        const projects = new Set(
          ((answer.json as { results?: { resourceName: string }[] }).results ?? []).map((r) =>
            r.resourceName.replace(/^projects\//, ""),
          ),
        );
        if (
          answer.status !== 200 ||
          projects.size !== facts.projectsOf(user).size ||
          [...projects].some((p) => !facts.projectsOf(user).has(p))
        ) {
          brokenKeys.push(`${user}: ${answer.status}`);
        }
      }),
    );
  }

  const mib = (bytes: number) => bytes / 2 ** 20;
  const memoryRows: MemoryRow[] = (["stub", "gateway"] as const).map((p) => ({
    process: p,
    start: memory.start[p].rss,
    afterWarmup: afterWarmup[p].rss,
    end: end[p].rss,
    heapAfterWarmup: afterWarmup[p].heapUsed,
    heapEnd: end[p].heapUsed,
    externalAfterWarmup: afterWarmup[p].external,
    externalEnd: end[p].external,
    samples: [memory.start[p].rss, ...samples.map((m) => m[p].rss), end[p].rss],
  }));
  const total = [...rows.values()].reduce((n, r) => n + r.requests, 0);
  const acknowledgedWrites = [...writes.values()].reduce((n, w) => n + w.length, 0);
  const checks: Check[] = [
    { name: "no 5xx", ok: fiveXx === 0, detail: `${fiveXx} of ${total} answers` },
    { name: "every request answered in time", ok: failures === 0, detail: `${failures} failed or timed out (10 s)` },
    {
      name: "every answer as the oracle says",
      ok: unexpectedCount === 0,
      detail:
        unexpectedCount === 0
          ? "valid: 200/403/404/409 as the data says or a 400 for a rule the schema cannot express; one constraint broken: 400 naming it"
          : `${unexpectedCount} unexpected:\n    ${unexpected.join("\n    ")}`,
    },
    {
      name: "no lost writes",
      ok: lost.length === 0,
      detail:
        lost.length === 0
          ? `${acknowledgedWrites} acknowledged PATCHes on ${writes.size} machines; every answer consistent, field by field, with the writes that may have preceded it; each final machine (search direct and through the gateway, a no-op PATCH) is the last acknowledged write; cluster totals exact`
          : lost.slice(0, 10).join("\n    "),
    },
    {
      name: "every created key works",
      ok: brokenKeys.length === 0,
      detail:
        brokenKeys.length === 0
          ? `${createdKeys.length} keys, each searching as its own user`
          : brokenKeys.slice(0, 10).join(", "),
    },
    {
      name: `RSS growth after warm-up within ${options.rssBoundMiB} MiB`,
      ok: memoryRows.every((r) => mib(r.end - r.afterWarmup) <= options.rssBoundMiB),
      detail: memoryRows
        .map(
          (r) =>
            `${r.process} ${mib(r.end - r.afterWarmup) >= 0 ? "+" : ""}${mib(r.end - r.afterWarmup).toFixed(1)} MiB`,
        )
        .join(", "),
    },
    {
      name: `heap growth after warm-up (after a full GC) within ${options.heapBoundMiB} MiB`,
      ok: memoryRows.every((r) => mib(r.heapEnd - r.heapAfterWarmup) <= options.heapBoundMiB),
      detail: memoryRows
        .map(
          (r) =>
            `${r.process} ${mib(r.heapEnd - r.heapAfterWarmup) >= 0 ? "+" : ""}${mib(r.heapEnd - r.heapAfterWarmup).toFixed(1)} MiB`,
        )
        .join(", "),
    },
  ];
  return {
    options: { ...options, warmupSeconds },
    elapsedSeconds,
    rows: [...rows.values()],
    memory: memoryRows,
    checks,
    ok: checks.every((c) => c.ok),
  };
}

/** Seconds between memory samples: about ten samples per run, at least one second apart. */
const sampleEverySeconds = (seconds: number) => Math.max(1, Math.round(seconds / 10));

/** Both servers' memory. */
async function both(processes: Record<"stub" | "gateway", ChildProcess>) {
  const [stub, gateway] = await Promise.all([memoryOf(processes.stub), memoryOf(processes.gateway)]);
  return { stub, gateway };
}

type ClusterSeen = {
  machines?: { id: string; priceHr?: { value: string } }[];
  totalMachinePriceHr?: { value: string };
};

/** A cluster as search shows it to a user who may access its project. */
async function clusterAsSearched(url: string, projectId: string, clusterId: string): Promise<ClusterSeen> {
  return (await clusterState(url, userKeys[facts.readerOf(projectId) ?? "alice"], clusterId)) as ClusterSeen;
}

/** A machine as its cluster in search shows it. */
export async function machineAsSearched(
  url: string,
  projectId: string,
  id: string,
  clusterId: string,
): Promise<unknown> {
  return (await clusterAsSearched(url, projectId, clusterId)).machines?.find((m) => m.id === id);
}

/** What a PATCH can set again to change nothing. */
type Settable = { state?: string; powerState?: string; volumeIds?: string[] };

/**
 * A PATCH body that sets a field of the machine to the value it has. The spec refuses `STATE_UNSPECIFIED` and
 * `MACHINE_POWER_STATE_UNSPECIFIED` as targets, which a machine no write reached may have (cm-gamma-01 has both);
 * its list of volumes can always be given again.
 */
function noOpPatch(current: Settable | undefined): Settable {
  if (current?.state && current.state !== "STATE_UNSPECIFIED") return { state: current.state };
  if (current?.powerState && current.powerState !== "MACHINE_POWER_STATE_UNSPECIFIED")
    return { powerState: current.powerState };
  if (current?.volumeIds) return { volumeIds: current.volumeIds };
  throw new Error(`no PATCH leaves the machine ${JSON.stringify(current)} as it is`);
}

/** A machine as a PATCH that sets one of its fields to the value it has answers with it. */
export async function machineAsPatched(url: string, projectId: string, id: string): Promise<unknown> {
  const reader = facts.readerOf(projectId) ?? "alice";
  const current = (await machineAsSearched(url, projectId, id, facts.machine(projectId, id)?.clusterId ?? "")) as
    | Settable
    | undefined;
  const body = noOpPatch(current);
  const answer = await send(url, {
    method: "PATCH",
    path: `/v1/projects/${projectId}/cluster-machines/${id}`,
    headers: { authorization: `Bearer ${userKeys[reader]}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return answer.json;
}

/** The report as text: a table per target and operation, memory, and the checks. */
export function formatReport(report: SoakReport): string {
  const { options } = report;
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  const lines = [
    `compute-api soak: ${options.seconds} s (warm-up ${options.warmupSeconds} s), ${options.clients} clients (half straight to the stub, half through the gateway), ${Math.round((options.invalidShare ?? 0.25) * 100)} % with one constraint broken, seed ${options.seed}`,
    `Node ${process.version}, ${availableParallelism()} CPUs, servers in their own processes on 127.0.0.1`,
    "",
    "| target | operation | requests | req/s | statuses | p50 ms | p99 ms |",
    "|---|---|---:|---:|---|---:|---:|",
  ];
  const sortedRows = [...report.rows].sort(
    (a, b) => a.via.localeCompare(b.via) || a.operation.localeCompare(b.operation),
  );
  for (const r of sortedRows) {
    const sorted = [...r.latenciesMs].sort((a, b) => a - b);
    const statuses = Object.entries(r.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ");
    lines.push(
      `| ${r.via} | ${r.operation} | ${r.requests} | ${Math.round(r.requests / report.elapsedSeconds)} | ${statuses} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} |`,
    );
  }
  const all = report.rows.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  lines.push(
    `| all | all | ${all.length} | ${Math.round(all.length / report.elapsedSeconds)} | | ${percentile(all, 50).toFixed(1)} | ${percentile(all, 99).toFixed(1)} |`,
  );
  const signed = (b: number) => `${b >= 0 ? "+" : ""}${mib(b)}`;
  lines.push(
    "",
    "Memory of each server after a full GC (MiB); heap and external (Buffers) from after warm-up to the end:",
    "",
    "| process | RSS at start | after warm-up | at the end | RSS growth after warm-up | heap | external |",
    "|---|---:|---:|---:|---:|---:|---:|",
  );
  for (const m of report.memory) {
    lines.push(
      `| ${m.process} | ${mib(m.start)} | ${mib(m.afterWarmup)} | ${mib(m.end)} | ${signed(m.end - m.afterWarmup)} | ${mib(m.heapAfterWarmup)} → ${mib(m.heapEnd)} | ${mib(m.externalAfterWarmup)} → ${mib(m.externalEnd)} |`,
    );
  }
  lines.push("");
  for (const m of report.memory)
    lines.push(
      `RSS of the ${m.process} every ${sampleEverySeconds(options.seconds)} s: ${m.samples.map((b) => Math.round(b / 2 ** 20)).join(" ")} MiB`,
    );
  lines.push("");
  for (const c of report.checks) lines.push(`${c.ok ? "PASS" : "FAIL"} ${c.name}: ${c.detail}`);
  return lines.join("\n");
}
