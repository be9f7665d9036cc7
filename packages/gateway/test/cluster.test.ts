/**
 * compute-gateway --workers: `/metrics` sums the living workers at once, also right after a worker died and while
 * its replacement starts (prom-client's clusterMetrics waited 5 s for the dead one, then answered 500). The real
 * command runs as a child process in its own process group, which every test ends whole.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { get } from "node:http";
import { fileURLToPath } from "node:url";
import { freePort } from "@compute-api/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { json, type TestUpstream, testUpstream } from "./support/servers.js";

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));

/** A gateway with workers: the primary, its output so far, and the pids of the workers that said they listen. */
interface Running {
  primary: ChildProcess;
  output: () => string;
  workerPids: () => number[];
  /** Resolves with the time (performance.now) at which the output first matched. */
  seen: (pattern: RegExp) => Promise<number>;
  exited: Promise<void>;
}

let started: { running: Running; upstream: TestUpstream }[] = [];

afterEach(async () => {
  for (const { running, upstream } of started) {
    await stop(running);
    await upstream.close();
  }
  started = [];
});

/** Starts compute-gateway --workers N in its own process group, in front of an upstream answering `{ results: [] }`. */
async function startWorkers(workers: number): Promise<{ running: Running; port: number }> {
  const upstream = await testUpstream();
  upstream.answer = (_req, res) => json(res, 200, { results: [] });
  const port = await freePort();
  const primary = spawn(
    process.execPath,
    [
      "--conditions",
      "@compute-api/source",
      "--import",
      "tsx",
      bin,
      "--upstream",
      upstream.url,
      "--port",
      String(port),
      "--workers",
      String(workers),
    ],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString();
    primary.emit("output");
  };
  primary.stdout?.on("data", onOutput);
  primary.stderr?.on("data", onOutput);
  const seen = (pattern: RegExp) =>
    new Promise<number>((resolve) => {
      const check = () => {
        if (!pattern.test(output)) return;
        primary.off("output", check);
        resolve(performance.now());
      };
      primary.on("output", check);
      check();
    });
  const exited = new Promise<void>((resolve) => primary.once("exit", () => resolve()));
  const workerPids = () =>
    [...output.matchAll(/"pid":(\d+),"msg":"compute-gateway listening"/g)].map((m) => Number(m[1]));
  const running = { primary, output: () => output, workerPids, seen, exited };
  started.push({ running, upstream });
  await until(
    () => workerPids().length >= workers,
    90_000,
    () => output,
  );
  return { running, port };
}

/** Ends the whole process group: SIGTERM (the primary stops its workers), then SIGKILL for anything left. */
async function stop({ primary, exited }: Running): Promise<void> {
  const group = -(primary.pid ?? 0);
  signal(group, "SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  signal(group, "SIGKILL");
}

/** Sends a signal, ignoring a process (group) that is already gone. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** Whether a process is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `done` holds, or fails after `ms` showing `context`. */
async function until(done: () => boolean, ms: number, context: () => string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms; output:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What one scrape got: the answer, or no answer at all within 20 s (`lost`: a hang, whatever the machine's load). */
type Scrape = { status: number; text: string; startedAt: number } | { lost: string; startedAt: number };

/** GET /metrics on a new connection (a kept-alive one to the killed worker would only fail faster). */
function scrape(port: number): Promise<Scrape> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const req = get({ host: "127.0.0.1", port, path: "/metrics", agent: false, timeout: 20_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, startedAt }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 20 s")));
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ lost: error.code ?? error.message, startedAt }));
  });
}

describe("compute-gateway --workers, /metrics", () => {
  it("answers at once with the living workers' sum right after a worker was killed, and while its replacement starts", async () => {
    const { running, port } = await startWorkers(2);
    for (let i = 0; i < 6; i++)
      await fetch(`http://127.0.0.1:${port}/v1/resources/search?query=a`, { headers: { authorization: "Bearer k" } });
    const before = await scrape(port);
    expect("text" in before && before.text).toContain(
      'gateway_requests_total{operation_id="searchResources",status="200"} 6',
    );

    const [victim] = running.workerPids();
    const noticed = running.seen(/a worker died; starting another/);
    process.kill(victim!, "SIGKILL");
    // At once and repeatedly, two every 50 ms without waiting for answers: before the primary noticed, after, while
    // the new worker starts and once it serves (10 rounds after both); up to a minute, for a hang.
    const pending: Promise<Scrape>[] = [];
    let noticedAt = Infinity;
    void noticed.then((at) => (noticedAt = at));
    const replaced = () => running.workerPids().length >= 3;
    let roundsAfter = 0;
    for (const deadline = performance.now() + 60_000; roundsAfter < 10 && performance.now() < deadline; ) {
      if (replaced() && performance.now() > noticedAt) roundsAfter++;
      pending.push(scrape(port), scrape(port));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(replaced()).toBe(true);
    const scrapes = await Promise.all(pending);
    for (const s of scrapes) {
      if ("lost" in s) {
        // node:cluster hands a connection the primary accepted to a worker that may die before taking it, and then
        // never to another: such a connection hangs. That is the cluster's, not /metrics', and ends once the primary
        // has seen the worker exit.
        expect(s.startedAt, `a scrape got no answer (${s.lost}) after the primary saw the worker exit`).toBeLessThan(
          noticedAt,
        );
        continue;
      }
      expect(s.status).toBe(200);
      expect(s.text).toContain("# TYPE gateway_requests_total counter");
    }
    expect(scrapes.filter((s) => "status" in s && s.startedAt >= noticedAt).length).toBeGreaterThanOrEqual(10);
    // No scrape waited for the dead worker's registry: the primary logs each worker it gave up waiting for.
    expect(running.output()).not.toMatch(new RegExp(`"pid":${victim},"msg":"a worker did not send its metrics`));
    expect(alive(victim!)).toBe(false);
  }, 180_000);

  it("leaves nothing running once stopped", { timeout: 120_000 }, async () => {
    const { running } = await startWorkers(2);
    const pids = [running.primary.pid!, ...running.workerPids()];
    await stop(running);
    await until(
      () => pids.every((pid) => !alive(pid)),
      20_000,
      () => `still running: ${pids.filter(alive).join(", ")}`,
    );
  });
});
