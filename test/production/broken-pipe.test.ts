/**
 * A server whose log reader dies (`compute-gateway | pino-pretty`, and pino-pretty is gone): SIGTERM still drains
 * it and ends it with exit 0. Before, the gateway never exited (when it exited with a log line still on its way,
 * sonic-boom's synchronous flush at exit retried the broken pipe without end) and the stub died of an unhandled
 * EPIPE at the signal, cutting what it was serving.
 */
import { get } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "@compute-api/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { aliceKey, exitWithin, killCommandProcesses, startCommandProcess } from "./support.js";

const drainFlags = ["--shutdown-grace", "200", "--shutdown-timeout", "5000"];

afterAll(() => killCommandProcesses());

/** The URL a command printed it listens on. */
const urlOf = (output: string) => /(?:"url":"|listening on )(http:\/\/[\d.:]+)/.exec(output)?.[1] ?? "";

/** GET on a connection of its own that closes with the answer, so that none is left for a drain to wait for. */
const statusOf = (url: string) =>
  new Promise<number | undefined>((resolve, reject) =>
    get(url, { agent: false, headers: { authorization: `Bearer ${aliceKey}` } }, (res) => {
      res.resume().on("end", () => resolve(res.statusCode));
    }).on("error", reject),
  );

describe("a server whose standard output has no reader any more", () => {
  it.each([
    ["compute-stub", async () => ["--port", "0", "--api-key", aliceKey, ...drainFlags]],
    // No upstream to close at shutdown (a closed local port): nothing delays the exit after the signal's log line.
    [
      "compute-gateway",
      async () => ["--upstream", `http://127.0.0.1:${await freePort()}`, "--port", "0", ...drainFlags],
    ],
  ] as const)("%s drains and exits 0 on SIGTERM", async (name, args) => {
    const running = await startCommandProcess(name, await args());
    expect(await statusOf(`${urlOf(running.output())}/healthz`)).toBe(200);
    // The reader goes away: every later write to standard output fails with EPIPE. The first to fail is the line
    // the signal makes it write, and with no connection left it exits right after, that write still on its way.
    running.child.stdout?.destroy();
    await sleep(300);
    process.kill(-(running.child.pid ?? 0), "SIGTERM");
    expect(await exitWithin(running, 10_000)).toBe(0);
  });
});
