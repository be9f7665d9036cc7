/** What the production suites share: a stub backend that logs into memory, traffic through undici, the metrics. */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createLogger } from "@compute-api/contract/http";
import { createApp } from "@compute-api/stub-server";
import { type Agent, request } from "undici";

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
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const stub = await createApp({ apiKeys: { alice: aliceKey }, logger: createLogger({ level: "info", destination }) });
  const server = createServer(stub.app);
  server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    get logs() {
      return lines.map((line) => JSON.parse(line) as StubLine);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(stub.close()));
        server.closeAllConnections();
      }),
  };
}

/** One answer as the client saw it: the status, or the error's code when there was none. */
export interface Outcome {
  method: "GET" | "PATCH";
  id: string;
  status: number | string;
}

let sequence = 0;

/** Sends a search (GET) or a PATCH of alice's machine through `base` on the client's keep-alive agent. */
export async function call(agent: Agent, base: string, method: "GET" | "PATCH", tag: string): Promise<Outcome> {
  const id = `${tag}-${method}-${++sequence}`;
  try {
    const res = await request(base + (method === "GET" ? searchPath : machinePath), {
      method,
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${aliceKey}`,
        "x-request-id": id,
        "accept-encoding": "gzip",
        ...(method === "PATCH" ? { "content-type": "application/json" } : {}),
      },
      ...(method === "PATCH" ? { body: JSON.stringify({ priceHr: { value: String(sequence % 97) } }) } : {}),
    });
    await res.body.dump();
    return { method, id, status: res.statusCode };
  } catch (error) {
    return { method, id, status: (error as { code?: string }).code ?? String(error) };
  }
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

/** A compute-gateway process started from source, in a process group of its own. */
export interface GatewayProcess {
  child: ChildProcess;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal) once the process has exited. */
  exited: Promise<number | string | null>;
}

const gatewayBin = fileURLToPath(new URL("../../packages/gateway/src/bin.ts", import.meta.url));
const started = new Set<ChildProcess>();
// However the run ends, no gateway it started outlives it.
process.on("exit", () => {
  for (const child of started) if (child.exitCode === null && child.pid) killGroup(child.pid);
});

/** Sends SIGKILL to a process group, if it still exists. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone already
  }
}

/** Starts `compute-gateway` with `args`; resolves once it listens (every worker, with --workers), or rejects with its output. */
export async function startGatewayProcess(args: string[], listeners = 1): Promise<GatewayProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions", "@compute-api/source", "--import", "tsx", gatewayBin, ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
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
  const deadline = Date.now() + 20_000;
  while ((text.match(/compute-gateway listening/g) ?? []).length < listeners) {
    if (child.exitCode !== null || Date.now() > deadline) {
      killGroup(child.pid ?? 0);
      throw new Error(`compute-gateway did not start:\n${text}`);
    }
    await sleep(50);
  }
  return { child, output: () => text, exited };
}

/** Ends every gateway process these helpers started that is still running. */
export function killGatewayProcesses(): void {
  for (const child of started) if (child.exitCode === null && child.pid) killGroup(child.pid);
}

/** PATCHes the backend received more than once, by request id. */
export function patchedTwice(stub: LoggedStub): string[] {
  const seen = new Map<string, number>();
  for (const line of stub.logs)
    if (line.req?.method === "PATCH" && line.reqId) seen.set(line.reqId, (seen.get(line.reqId) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}
