/**
 * A second SIGTERM while a server drains, as a supervisor that signals a whole process group sends it (systemd's
 * KillMode=control-group, dumb-init; with compute-gateway --workers each worker gets it from the sender and from its
 * primary) or an impatient user does: every request in flight still finishes 200 and every process exits 0 by
 * itself. Node's default for a signal nobody listens to any more ends the process at once, cutting those requests.
 * Each command runs as a process of its own, in its own process group, which gets both signals 200 ms apart.
 */
import { acceptedConnections, freePort, groupAlive } from "@compute-api/test-support";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aliceKey,
  type CallOptions,
  type CommandProcess,
  call,
  exitWithin,
  failures,
  killCommandProcesses,
  type LoggedStub,
  type Outcome,
  signalGroupTwice,
  startCommandProcess,
  startLoggedStub,
} from "./support.js";

/**
 * How long each request in flight runs: decisively past the second signal (sent once the server has them, and
 * 200 ms after the first), however busy the machine.
 */
const slowMs = 6000;
/** Short, for a fast test; the connections of the requests in flight close with their answers anyway. */
const drainFlags = ["--shutdown-grace", "500", "--shutdown-timeout", "30000"];

/** What happened to a process and its requests in flight across the two signals. */
interface Run {
  outcomes: Outcome[];
  /** Whether the process still ran, and how many requests were still in flight, when the second signal was sent. */
  runningAtSecond: boolean;
  inFlightAtSecond: number;
  code: number | string | null;
  output: string;
}

/**
 * Sends `count` slow requests to `base` on keep-alive connections (GETs and PATCHes in turn, or PATCHes only when
 * the upload is the slow part), then, once the server has them, SIGTERM twice to the process group of `running`.
 * `arrived` counts the requests that reached the backend behind it, when the test can see it (a gateway's);
 * otherwise it waits until the process has accepted their connections (a request on an accepted connection is
 * served: the drain closes only the listener, and an idle one only after its grace, by which the request is read).
 */
async function twoSignalsWhileBusy(
  running: CommandProcess,
  base: string,
  slow: CallOptions,
  arrived?: () => number,
  count = 4,
): Promise<Run> {
  const agent = new Agent({ connections: count, keepAliveTimeout: 60_000 });
  let settled = 0;
  const requests = Array.from({ length: count }, (_, i) =>
    call(agent, base, slow.uploadPauseMs !== undefined || i % 2 === 1 ? "PATCH" : "GET", "signal", slow).finally(
      () => settled++,
    ),
  );
  if (arrived) await expect.poll(arrived, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
  else {
    const { port } = new URL(base);
    const accepted = () => acceptedConnections(running.child.pid ?? 0, Number(port));
    await expect.poll(accepted, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
  }
  const runningAtSecond = await signalGroupTwice(running);
  const inFlightAtSecond = count - settled;
  const outcomes = await Promise.all(requests);
  const code = await exitWithin(running, 30_000);
  await agent.close();
  return { outcomes, runningAtSecond, inFlightAtSecond, code, output: running.output() };
}

/** The assertions every command shares: the second signal came mid-drain, and cut nothing. */
function expectNothingCut(run: Run, count = 4): void {
  expect({ runningAtSecond: run.runningAtSecond, inFlightAtSecond: run.inFlightAtSecond }).toEqual({
    runningAtSecond: true,
    inFlightAtSecond: count,
  });
  expect(failures(run.outcomes), run.output).toEqual({});
  expect(run.code, run.output).toBe(0);
  expect(run.output).not.toMatch(/request cut/);
}

describe("a second SIGTERM while draining", () => {
  let stub: LoggedStub;
  /** Requests that reached the stub behind the gateways, since it started. */
  let reachedStub = 0;
  /** Counts the requests that reach the stub from now on. */
  const reachingStub = () => {
    const before = reachedStub;
    return () => reachedStub - before;
  };
  const latency = { headers: { prefer: `latency=${slowMs}` } };

  beforeAll(async () => {
    stub = await startLoggedStub();
    stub.server.on("request", () => reachedStub++);
  });
  afterAll(async () => {
    killCommandProcesses();
    await stub?.close();
  });

  it("compute-gateway: the requests in flight (a slow backend) finish 200 and it exits 0", async () => {
    const port = await freePort();
    const gateway = await startCommandProcess("compute-gateway", [
      "--upstream",
      stub.url,
      "--port",
      String(port),
      ...drainFlags,
    ]);
    const run = await twoSignalsWhileBusy(gateway, `http://127.0.0.1:${port}`, latency, reachingStub());
    expectNothingCut(run);
    expect(run.output).toMatch(/SIGTERM again: already draining/);
    expect(run.output).toMatch(/compute-gateway stopped: no connection left/);
  });

  it("compute-gateway --workers 2, signalled as a group (each worker gets 3 SIGTERMs): nothing is cut and every process exits", async () => {
    const port = await freePort();
    const gateway = await startCommandProcess(
      "compute-gateway",
      ["--upstream", stub.url, "--port", String(port), "--workers", "2", ...drainFlags],
      2,
    );
    const workers = [...gateway.output().matchAll(/"pid":(\d+),"msg":"compute-gateway listening"/g)].map((m) =>
      Number(m[1]),
    );
    expect(workers).toHaveLength(2);
    const run = await twoSignalsWhileBusy(gateway, `http://127.0.0.1:${port}`, latency, reachingStub());
    expectNothingCut(run);
    for (const pid of workers) {
      // Each worker saw a signal after its first, and drained to its end.
      expect(run.output).toMatch(new RegExp(`"signal":"SIGTERM","pid":${pid},"msg":"SIGTERM again`));
      expect(run.output).toMatch(new RegExp(`"pid":${pid},"msg":"compute-gateway stopped: no connection left"`));
    }
    expect(groupAlive(gateway.child.pid ?? 0)).toBe(false);
  });

  it.each([
    ["compute-stub", "the requests in flight (Prefer: latency)", latency],
    ["compute-postgres", "on PGlite, the PATCHes in flight (slow uploads)", { uploadPauseMs: slowMs }],
  ] as const)(
    "%s: %s finish 200 and it exits 0",
    async (name, _what, slow) => {
      const port = await freePort();
      const server = await startCommandProcess(name, [
        ...["--port", String(port), "--api-key", aliceKey, "--log-level", "warn"],
        ...drainFlags,
      ]);
      const run = await twoSignalsWhileBusy(server, `http://127.0.0.1:${port}`, slow);
      expectNothingCut(run);
      expect(run.output).toMatch(`${name}: stopped, no connection left`);
    },
    270_000,
  );
});
