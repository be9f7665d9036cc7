/** Turns: one at a time, in order of arrival; a failing turn passes it on; the wait is bounded and abortable. */
import { setTimeout as sleep } from "node:timers/promises";
import type { ApiError } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { oneAtATime } from "../../src/database/turns.js";

describe("oneAtATime", () => {
  it("runs work one at a time, in order of arrival, a failure passing the turn on", async () => {
    // A bound far above the 10 ms each waits, however busy the machine: nothing here waits it out.
    const turns = oneAtATime(30_000);
    const log: string[] = [];
    const work = (name: string, fail = false) =>
      turns.run(async () => {
        log.push(`start ${name}`);
        await sleep(10);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([work("a"), work("b", true), work("c")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(turns.waiting).toBe(0);
  });

  it("answers 503 to a wait longer than the bound, and 504 to one whose signal fires; neither runs", async () => {
    const turns = oneAtATime(100);
    let release = () => {};
    const held = turns.run(() => new Promise<void>((resolve) => (release = resolve)));
    const ran: string[] = [];
    const controller = new AbortController();
    const timedOut = turns.run(async () => ran.push("timed out")).catch((e: ApiError) => e.status);
    const aborted = turns.run(async () => ran.push("aborted"), controller.signal).catch((e: ApiError) => e.status);
    expect(turns.waiting).toBe(2);
    controller.abort();
    expect(await aborted).toBe(504);
    expect(await timedOut).toBe(503);
    expect(turns.waiting).toBe(0);
    release();
    await held;
    expect(await turns.run(async () => "next")).toBe("next");
    expect(ran).toEqual([]);
  });
});
