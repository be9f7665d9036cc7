/**
 * A rolling restart behind a real load balancer: Debian's nginx, round-robin over two gateways with a keep-alive
 * upstream pool, under steady GETs and PATCHes. Each gateway in turn gets SIGTERM and, once it has exited, a new
 * process takes its port. No request may fail (but for the race of a listener's close that no server can avoid: see
 * `failuresBesideListenerRace`), no PATCH may reach the backend twice, and each old process must
 * exit by itself once the balancer has closed its idle connections, having cut nothing.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "@compute-api/test-support";
import { type Nginx, skipWithoutNginx, startNginx } from "@compute-api/test-support/nginx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  balancer,
  type CommandProcess,
  failuresBesideListenerRace,
  killCommandProcesses,
  type LoggedStub,
  logsRequest,
  patchedTwice,
  startCommandProcess,
  startLoggedStub,
  steadyTraffic,
} from "./support.js";

/**
 * Decisively above the balancer's idle time for its pooled connections (2 s), which the README says to keep below
 * it: the balancer closes them, never the grace, however busy the machine.
 */
const shutdownGraceMs = 10_000;

describe.skipIf(skipWithoutNginx())("a rolling restart of two gateways behind nginx", () => {
  let stub: LoggedStub;
  let nginx: Nginx;
  const ports: number[] = [];

  beforeAll(async () => {
    stub = await startLoggedStub();
    ports.push(await freePort(), await freePort());
    nginx = await startNginx((port) => balancer(port, ports, "2s"));
  });
  afterAll(async () => {
    killCommandProcesses();
    await nginx?.stop();
    await stub?.close();
  });

  it.each([
    ["one process each", [] as string[], 1],
    ["--workers 2 each", ["--workers", "2"], 2],
  ])(
    "%s: under steady GETs and PATCHes, no request fails and no PATCH is applied twice",
    async (_name, extra, listeners) => {
      const args = (port: number) => [
        "--upstream",
        stub.url,
        "--port",
        String(port),
        "--shutdown-grace",
        String(shutdownGraceMs),
        ...extra,
      ];
      const gateways: CommandProcess[] = [];
      for (const port of ports) gateways.push(await startCommandProcess("compute-gateway", args(port), listeners));
      /** Every gateway process of the run, old and new, for whether a request reached one. */
      const ran = [...gateways];
      const traffic = steadyTraffic(nginx.url, 8);
      try {
        await sleep(500);
        for (const [i, port] of ports.entries()) {
          const old = gateways[i]!;
          old.child.kill("SIGTERM");
          const code = await Promise.race([old.exited, sleep(30_000).then(() => "still running 30 s after SIGTERM")]);
          expect(code, old.output()).toBe(0);
          expect(old.output()).not.toMatch(/request cut/);
          expect(old.output()).toMatch(/compute-gateway stopped: no connection left/);
          // It exited once its connections were gone: each busy one after its answer, each idle one closed by the
          // balancer (its idle time), none by the gateway's grace (which logs what it closes).
          expect(old.output()).not.toMatch(/shutdown grace over/);
          gateways[i] = await startCommandProcess("compute-gateway", args(port), listeners);
          ran.push(gateways[i]!);
          await sleep(500);
        }
      } finally {
        const outcomes = await traffic.stop();
        for (const gateway of gateways) gateway.child.kill("SIGTERM");
        await Promise.all(gateways.map((gateway) => gateway.exited));
        const errors = nginx
          .errorLog()
          .split("\n")
          .filter((l) => /\[error\]/.test(l) && !/Connection refused/.test(l));
        const { failures, setAside, unlogged } = failuresBesideListenerRace(outcomes, [
          {
            errorLog: nginx.errorLog(),
            logged: (id) => ran.some((gateway) => logsRequest(gateway.output(), id)),
          },
        ]);
        expect(failures, errors.slice(0, 5).join("\n")).toEqual({});
        expect(setAside.length, "PATCHes reset in a closing listener's queue").toBeLessThanOrEqual(2);
        expect(unlogged, "PATCHes answered 200 that a gateway has no line of").toEqual([]);
        expect(outcomes.length).toBeGreaterThan(100);
        expect(patchedTwice(stub)).toEqual([]);
      }
    },
    360_000,
  );
});
