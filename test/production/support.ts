/**
 * What the production suites share: a stub backend that logs into memory, traffic through undici, the metrics, the
 * project's commands as processes and their signals, and nginx as a balancer in front of them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { createApp } from "@compute-api/stub-server";
import { captureLogs, killGroup, listenLocal } from "@compute-api/test-support";
import { Agent, request } from "undici";

/** alice's key, known to every stub these suites start. */
export const aliceKey = "cak_production-test-alice-0001";
/** A machine alice may PATCH. */
export const machinePath = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
export const searchPath = "/v1/resources/search?query=alpha";

/** A request line of the stub's log. */
export interface StubLine {
  reqId?: string;
  req?: { method?: string };
  res?: { status?: number };
}

/** A stub on an ephemeral 127.0.0.1 port, with its log lines (one per request, with its x-request-id as reqId). */
export interface LoggedStub {
  server: Server;
  port: number;
  url: string;
  logs: StubLine[];
  close(): Promise<void>;
}

/** Starts a stub whose node:http server closes idle connections after `keepAliveTimeoutMs`. */
export async function startLoggedStub(keepAliveTimeoutMs = 5000): Promise<LoggedStub> {
  const { lines, logger } = captureLogs<StubLine>();
  const stub = await createApp({ apiKeys: { alice: aliceKey }, logger });
  const server = createServer(stub.app);
  server.keepAliveTimeout = keepAliveTimeoutMs;
  const listening = await listenLocal(server);
  return {
    ...listening,
    logs: lines,
    close: async () => {
      await listening.close();
      await stub.close();
    },
  };
}

/** One answer as the client saw it: the status, or the error's code when there was none. */
export interface Outcome {
  method: "GET" | "PATCH";
  id: string;
  status: number | string;
}

/** What a call may change: the path (a search or a machine), the PATCH's body, more headers. */
export interface CallOptions {
  path?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The PATCH's body is sent in two halves this many ms apart: a slow client, whose request the server is reading. */
  uploadPauseMs?: number;
}

let sequence = 0;

/**
 * Sends a search (GET) or a PATCH of alice's machine through `base` on the client's keep-alive agent; the PATCH
 * sets a price unless `options.body` says otherwise.
 */
export async function call(
  agent: Agent,
  base: string,
  method: "GET" | "PATCH",
  tag: string,
  options: CallOptions = {},
): Promise<Outcome> {
  const id = `${tag}-${method}-${++sequence}`;
  const body = JSON.stringify(options.body ?? { priceHr: { value: String(sequence % 97) } });
  const pause = options.uploadPauseMs;
  try {
    const res = await request(base + (options.path ?? (method === "GET" ? searchPath : machinePath)), {
      method,
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${aliceKey}`,
        "x-request-id": id,
        "accept-encoding": "gzip",
        ...(method === "PATCH" ? { "content-type": "application/json", "content-length": String(body.length) } : {}),
        ...options.headers,
      },
      ...(method !== "PATCH" ? {} : pause === undefined ? { body } : { body: Readable.from(halves(body, pause)) }),
    });
    await res.body.dump();
    return { method, id, status: res.statusCode };
  } catch (error) {
    return { method, id, status: (error as { code?: string }).code ?? String(error) };
  }
}

/** `text` in two halves, the second `pauseMs` after the first. */
async function* halves(text: string, pauseMs: number): AsyncGenerator<string> {
  yield text.slice(0, text.length >> 1);
  await sleep(pauseMs);
  yield text.slice(text.length >> 1);
}

/**
 * `clients` keep-alive clients that each send one request after the other until `stop()` resolves: by default
 * GETs and PATCHes in turn (`call`), or what `send` sends for a client's `n`th request.
 */
export function steadyTraffic(
  base: string,
  clients: number,
  send: (agent: Agent, client: number, n: number) => Promise<Outcome> = (agent, client, n) =>
    call(agent, base, (client + n) % 2 === 0 ? "GET" : "PATCH", "steady"),
): { stop(): Promise<Outcome[]> } {
  const agent = new Agent({ connections: clients, keepAliveTimeout: 60_000 });
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let n = 0; running; n++) outcomes.push(await send(agent, client, n));
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      await agent.close();
      return outcomes;
    },
  };
}

/** The value of a counter's series in a Prometheus text exposition (0 when absent), summed over those matching. */
export function counter(metrics: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of metrics.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/** Statuses other than 200, by status, for a failure message that says what went wrong. */
export function failures(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes)
    if (o.status !== 200) counts[`${o.method} ${o.status}`] = (counts[`${o.method} ${o.status}`] ?? 0) + 1;
  return counts;
}

/** nginx's error-log line for a PATCH whose connection was reset while nginx waited for the answer. */
const patchResetWhileWaiting =
  /recv\(\) failed \(104: Connection reset by peer\) while reading response header from upstream.*request: "PATCH /;

/** One balanced hop: the error log of its nginx, and whether a process behind it logged a request id. */
export interface Hop {
  errorLog: string;
  logged(id: string): boolean;
}

/** Whether `output` (a command's lines) has a line of the request `id`. */
export const logsRequest = (output: string, id: string): boolean => output.includes(`"reqId":"${id}"`);

/**
 * The failures of a run, less those of the one race no drain can close. Closing a listening socket resets the
 * connections the kernel has completed but the process has not accepted yet: TCP has no graceful close for a listener.
 * When nginx opens a connection in that instant and sends a request on it, a GET goes to the next server, but a PATCH
 * is answered 502 (`Connection reset by peer … while reading response header`). Such a 502 is set aside only when no
 * process behind that nginx logged its request, so it changed nothing, and no more of them than that nginx logged
 * resets; the callers' checks of what was applied still hold. Every other failure counts. `hops` go from the front.
 * `unlogged` holds what that rests on: the PATCHes answered 200 that a hop has no line of (none, when it holds).
 */
export function failuresBesideListenerRace(
  outcomes: Outcome[],
  hops: Hop[],
): { failures: Record<string, number>; setAside: string[]; unlogged: string[] } {
  const resets = hops.map((hop) => hop.errorLog.split("\n").filter((line) => patchResetWhileWaiting.test(line)).length);
  const setAside: string[] = [];
  const failed = outcomes.filter((o) => {
    if (o.status === 200) return false;
    if (o.method !== "PATCH" || o.status !== 502) return true;
    for (const [i, hop] of hops.entries()) {
      if (hop.logged(o.id)) continue;
      if ((resets[i] ?? 0) === 0) return true;
      resets[i] = (resets[i] ?? 0) - 1;
      setAside.push(o.id);
      return false;
    }
    return true;
  });
  const unlogged = outcomes
    .filter((o) => o.method === "PATCH" && o.status === 200 && hops.some((hop) => !hop.logged(o.id)))
    .map((o) => o.id);
  return { failures: failures(failed), setAside, unlogged };
}

/** A package's command as its TypeScript source (`src/bin.ts`), found through the package, wherever it is. */
function sourceBin(name: string): string {
  return join(dirname(createRequire(import.meta.url).resolve(`${name}/package.json`)), "src", "bin.ts");
}

/** The commands these suites run as processes, each from its TypeScript source, and the line it prints once it listens. */
const commands = {
  "compute-gateway": { bin: sourceBin("@compute-api/gateway"), listening: /compute-gateway listening/g },
  "compute-stub": { bin: sourceBin("@compute-api/stub-server"), listening: /compute-stub listening on /g },
  "compute-postgres": { bin: sourceBin("@compute-api/example-postgres"), listening: /compute-postgres listening on /g },
} as const;

/** One of the project's commands. */
export type CommandName = keyof typeof commands;

/** A command's process started from source, in a process group of its own. */
export interface CommandProcess {
  child: ChildProcess;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal) once the process has exited. */
  exited: Promise<number | string | null>;
}

const started = new Set<ChildProcess>();
// However the run ends, no process it started outlives it.
process.on("exit", () => {
  for (const child of started) if (child.exitCode === null && child.pid) killGroup(child.pid);
});

/**
 * Starts `name` with `args` (as `node --import tsx`, the way its tests and `npm run` do), and `env` over this
 * process's environment; resolves once it listens (`listeners` times: every worker of compute-gateway --workers), or
 * rejects with its output.
 */
export async function startCommandProcess(
  name: CommandName,
  args: string[],
  listeners = 1,
  env: NodeJS.ProcessEnv = {},
): Promise<CommandProcess> {
  const { bin, listening } = commands[name];
  const child = spawn(process.execPath, ["--conditions", "@compute-api/source", "--import", "tsx", bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    env: { ...process.env, ...env },
  });
  started.add(child);
  let text = "";
  const append = (chunk: Buffer) => {
    text += chunk.toString("utf8");
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<number | string | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  // compute-postgres prepares its database first (PGlite's start, migrations, the data).
  const deadline = Date.now() + 120_000;
  while ((text.match(listening) ?? []).length < listeners) {
    if (child.exitCode !== null || Date.now() > deadline) {
      killGroup(child.pid ?? 0);
      throw new Error(`${name} did not start:\n${text}`);
    }
    await sleep(50);
  }
  return { child, output: () => text, exited };
}

/** Ends every process these helpers started that is still running. */
export function killCommandProcesses(): void {
  for (const child of started) if (child.exitCode === null && child.pid) killGroup(child.pid);
}

/**
 * Sends `signal` to the process group of `running` twice, `gapMs` apart, as a supervisor that signals a whole group
 * does (systemd's KillMode=control-group, dumb-init) and then the user again. Resolves with whether the process was
 * still running for the second one, which is what makes it count (it is not sent to a process that has exited).
 */
export async function signalGroupTwice(
  running: CommandProcess,
  signal: NodeJS.Signals = "SIGTERM",
  gapMs = 200,
): Promise<boolean> {
  const group = -(running.child.pid ?? 0);
  process.kill(group, signal);
  await sleep(gapMs);
  if (running.child.exitCode !== null || running.child.signalCode !== null) return false;
  try {
    process.kill(group, signal);
    return true;
  } catch {
    // it exited in the meantime
    return false;
  }
}

/** Resolves with the exit code (or signal) of `running`, or with what says it is still running after `ms`. */
export function exitWithin(running: CommandProcess, ms: number): Promise<number | string | null> {
  return Promise.race([running.exited, sleep(ms).then(() => `still running ${ms} ms later`)]);
}

/** Polls `url`/readyz until it answers 200, or fails after `ms`. */
export async function untilReady(url: string, ms = 60_000): Promise<void> {
  let last = "";
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) {
    try {
      // On a connection of its own, closed after: an idle one would hold a later drain for its grace period.
      const res = await request(`${url}/readyz`, { reset: true });
      await res.body.dump();
      if (res.statusCode === 200) return;
      last = String(res.statusCode);
    } catch (error) {
      last = (error as { code?: string }).code ?? String(error);
    }
  }
  throw new Error(`${url}/readyz did not answer 200 within ${ms} ms (last: ${last})`);
}

/**
 * nginx's http {} body for a round-robin balancer on `port` over `ports` on 127.0.0.1, as a deployment has it: a
 * keep-alive pool whose idle connections nginx closes after `keepaliveTimeout`, a server never marked down (a
 * refused connection is tried on the next), and nginx's default retries: a request is passed to the next server on
 * an error or timeout, a PATCH only when it was not sent.
 */
export function balancer(port: number, ports: readonly number[], keepaliveTimeout: string): string {
  return `
    upstream backends {
      ${ports.map((p) => `server 127.0.0.1:${p} max_fails=0;`).join("\n      ")}
      keepalive 16;
      keepalive_timeout ${keepaliveTimeout};
    }
    server {
      listen 127.0.0.1:${port};
      location / {
        proxy_pass http://backends;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_next_upstream error timeout;
      }
    }`;
}

/** PATCHes the backend received more than once, by request id. */
export function patchedTwice(stub: LoggedStub): string[] {
  const seen = new Map<string, number>();
  for (const line of stub.logs)
    if (line.req?.method === "PATCH" && line.reqId) seen.set(line.reqId, (seen.get(line.reqId) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}
