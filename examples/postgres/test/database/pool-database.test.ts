/**
 * The pg.Pool adapter against a real PostgreSQL server (@compute-api/test-support/postgres; skipped with one line without
 * it, except under CI): a connection the server ends fails only its own work, and never the process; statements
 * are bounded (statement_timeout, lock_timeout, the wait for a connection) and cancelled on the server when their
 * signal fires; start-up work is not bounded.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "@compute-api/contract";
import { freePort } from "@compute-api/test-support";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/database/database.js";
import { createPoolDatabase, type PoolDatabaseOptions } from "../../src/database/pool-database.js";
import { hold } from "../support/hold.js";

/** What a call rejected with, as a client would be answered. */
async function answerOf(call: Promise<unknown>): Promise<{ status: number; retryAfter?: string; message: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  const retryAfter = error.headers["Retry-After"];
  return { status: error.status, ...(retryAfter ? { retryAfter } : {}), message: error.message };
}

/** How long a promise took to settle, in ms. */
async function timed(call: Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call.catch(() => {});
  return performance.now() - start;
}

describe.skipIf(skipWithoutPostgres())("the pg.Pool adapter on PostgreSQL", () => {
  let postgres: Postgres;
  let admin: pg.Client;
  const opened: Database[] = [];
  const open = (options: PoolDatabaseOptions = {}) => {
    const db = createPoolDatabase(postgres.url, options);
    opened.push(db);
    return db;
  };
  /** The statements running now whose text holds `marker`. */
  const running = async (marker: string) =>
    (
      await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()",
        [marker],
      )
    ).rows;
  /** Waits until `check` holds, or `bound` ms (a hang, however busy the machine). */
  const until = async (check: () => Promise<boolean>, bound = 20_000) => {
    for (const deadline = Date.now() + bound; Date.now() < deadline; await sleep(20)) if (await check()) return true;
    return false;
  };

  beforeAll(async () => {
    postgres = await startPostgres();
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query("CREATE TABLE marks (id text PRIMARY KEY)");
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });
  afterAll(async () => {
    await admin?.end();
    await postgres?.close();
  });

  it("a connection ended by the server between two statements of a transaction fails that transaction with 503, and the process lives on", async () => {
    const db = open();
    const answer = answerOf(
      db.transaction(async (tx) => {
        const [me] = await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        await admin.query("SELECT pg_terminate_backend($1)", [me?.pid]);
        // The server's FATAL reaches the idle, checked-out connection as an 'error' event: unhandled, it ends the
        // process. It has been sent once the backend is gone; then a turn of the event loop reads it.
        await until(
          async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [me?.pid])).rowCount === 0,
        );
        await sleep(50);
        return tx.query("SELECT 1");
      }),
    );
    expect(await answer).toEqual({ status: 503, retryAfter: "1", message: "service unavailable: try again later" });
    expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("connections ended while idle in the pool cost nothing: the next query gets a new one", async () => {
    const db = open();
    await Promise.all([db.query("SELECT 1"), db.query("SELECT 1"), db.query("SELECT 1")]);
    const { rows: ended } = await admin.query<{ pid: number }>(
      "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    // Their backends are gone, so each connection's end is on its way to the pool; a turn of the event loop reads it.
    const pids = ended.map((row) => row.pid);
    await until(
      async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)", [pids])).rowCount === 0,
    );
    await sleep(50);
    expect(await db.query("SELECT 2 AS two")).toEqual([{ two: 2 }]);
  });

  it("a statement whose signal fires is cancelled on the server: 504, and gone from pg_stat_activity", async () => {
    const db = open();
    const controller = new AbortController();
    // The statement would run longer than the test may take: an answer at all is the cancellation's.
    const answer = answerOf(db.query("SELECT pg_sleep(600) -- cancel-me-1", [], { signal: controller.signal }));
    expect(await until(async () => (await running("cancel-me-1")).length === 1)).toBe(true);
    controller.abort();
    expect((await answer).status).toBe(504);
    expect(await running("cancel-me-1")).toEqual([]);
    expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("in a transaction too: the statement is cancelled, the transaction rolled back", async () => {
    const db = open();
    const controller = new AbortController();
    const answer = answerOf(
      db.transaction(
        async (tx) => {
          await tx.query("INSERT INTO marks VALUES ('rolled-back')");
          await tx.query("SELECT pg_sleep(30) -- cancel-me-2");
        },
        { signal: controller.signal },
      ),
    );
    expect(await until(async () => (await running("cancel-me-2")).length === 1)).toBe(true);
    controller.abort();
    expect((await answer).status).toBe(504);
    expect(await running("cancel-me-2")).toEqual([]);
    expect((await admin.query("SELECT 1 FROM marks WHERE id = 'rolled-back'")).rows).toEqual([]);
  });

  it("a statement whose signal has fired never starts, and a transaction whose signal fired before COMMIT rolls back", async () => {
    const db = open();
    const controller = new AbortController();
    controller.abort();
    expect(
      (await answerOf(db.query("INSERT INTO marks VALUES ('never')", [], { signal: controller.signal }))).status,
    ).toBe(504);
    const late = new AbortController();
    const answer = answerOf(
      db.transaction(
        async (tx) => {
          await tx.query("INSERT INTO marks VALUES ('not-committed')");
          late.abort();
        },
        { signal: late.signal },
      ),
    );
    expect((await answer).status).toBe(504);
    expect((await admin.query("SELECT id FROM marks WHERE id IN ('never', 'not-committed')")).rows).toEqual([]);
  });

  it("statement_timeout answers 504; lock_timeout 503 with Retry-After, each set to the time given", async () => {
    const db = open({ statementTimeoutMs: 300 });
    // Each connection holds the times given; a statement decisively longer than its timeout (30 s) ends at it.
    expect(await db.query("SHOW statement_timeout")).toEqual([{ statement_timeout: "300ms" }]);
    expect((await answerOf(db.query("SELECT pg_sleep(30)"))).status).toBe(504);
    await admin.query("INSERT INTO marks VALUES ('locked') ON CONFLICT DO NOTHING");
    const holder = new pg.Client({ connectionString: postgres.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM marks WHERE id = 'locked' FOR UPDATE");
      const locking = open({ lockTimeoutMs: 300 });
      expect(await locking.query("SHOW lock_timeout")).toEqual([{ lock_timeout: "300ms" }]);
      // The lock is held until the end of the test: only lock_timeout ends the wait.
      const answer = answerOf(locking.query("UPDATE marks SET id = 'moved' WHERE id = 'locked'"));
      expect(await answer).toEqual({
        status: 503,
        retryAfter: "1",
        message: "service unavailable: the resource is busy, try again later",
      });
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
  });

  it("waits for a connection at most acquireTimeoutMs (503), and stops waiting when the signal fires", async () => {
    const db = open({ max: 1, acquireTimeoutMs: 300 });
    const { held, release } = await hold(db);
    // The connection is held until released below: only acquireTimeoutMs ends the wait. It is the time given, not
    // another: neither wait ends before its time (a timer never fires early, however idle the machine), and the pool
    // given 20 times as long waits longer (a 20x margin for a busy machine, not a budget).
    const waited = answerOf(db.query("SELECT 1"));
    const short = await timed(waited);
    expect(await waited).toMatchObject({ status: 503, retryAfter: "1" });
    const patient = open({ max: 1, acquireTimeoutMs: 6_000 });
    const other = await hold(patient);
    const long = await timed(answerOf(patient.query("SELECT 1")));
    other.release();
    await other.held;
    const waits = `${Math.round(short)} ms and ${Math.round(long)} ms`;
    expect(short, waits).toBeGreaterThanOrEqual(290);
    expect(long, waits).toBeGreaterThanOrEqual(5_990);
    expect(short, waits).toBeLessThan(long);
    const controller = new AbortController();
    const abandoned = answerOf(db.query("INSERT INTO marks VALUES ('abandoned')", [], { signal: controller.signal }));
    controller.abort();
    expect((await abandoned).status).toBe(504);
    release();
    await held;
    // The connection the abandoned query would have had went back to the pool, and that query never ran.
    expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    expect((await admin.query("SELECT 1 FROM marks WHERE id = 'abandoned'")).rows).toEqual([]);
  });

  it("a server that cannot be reached is a 503 naming neither its address nor the driver's message", async () => {
    const port = await freePort();
    const unreachable = createPoolDatabase(`postgres://postgres@127.0.0.1:${port}/test`, { acquireTimeoutMs: 1_000 });
    opened.push(unreachable);
    const answer = await answerOf(unreachable.query("SELECT 1"));
    expect(answer).toEqual({ status: 503, retryAfter: "1", message: "service unavailable: try again later" });
  });

  it("start-up work is bounded by no timeout: an unbounded transaction, and a script, which leaves the connection as it was", async () => {
    const db = open({ max: 1, statementTimeoutMs: 200 });
    await db.transaction((tx) => tx.query("SELECT pg_sleep(0.4)"), { bounded: false });
    await db.exec("SELECT pg_sleep(0.4)");
    expect(await db.query("SHOW statement_timeout")).toEqual([{ statement_timeout: "200ms" }]);
    // Decisively past the connection's own timeout again, however busy the machine.
    expect((await answerOf(db.query("SELECT pg_sleep(5)"))).status).toBe(504);
  });
});
