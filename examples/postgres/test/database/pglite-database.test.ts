/**
 * The PGlite adapter: one statement at a time, so what is bounded is the wait for a turn (503 with Retry-After
 * after acquireTimeoutMs), a waiter whose signal fires never runs; and statement_timeout, which PGlite accepts,
 * never fires (docs/postgres-example.md says so).
 */
import { ApiError } from "@compute-api/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/database/database.js";
import { createPgliteDatabase } from "../../src/database/pglite-database.js";
import { hold } from "../support/hold.js";

describe("the PGlite adapter", () => {
  let db: Database;
  beforeAll(async () => {
    db = await createPgliteDatabase(undefined, { acquireTimeoutMs: 300 });
    await db.exec("CREATE TABLE marks (id text PRIMARY KEY)");
  });
  afterAll(async () => {
    await db.close();
  });

  /** Holds PGlite's one turn (a transaction waiting on JavaScript) until release() is called; resolves once held. */
  const holdTurn = () => hold(db);

  it("a query waits for its turn at most acquireTimeoutMs, then is answered 503 with Retry-After", async () => {
    const { held, release } = await holdTurn();
    const start = performance.now();
    const error = await db.query("SELECT 1").catch((e: unknown) => e);
    expect(performance.now() - start).toBeGreaterThanOrEqual(250);
    expect(error).toBeInstanceOf(ApiError);
    expect({ status: (error as ApiError).status, retryAfter: (error as ApiError).headers["Retry-After"] }).toEqual({
      status: 503,
      retryAfter: "1",
    });
    release();
    await held;
    expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("a waiting query whose signal fires leaves the line and never runs; one already aborted never starts", async () => {
    const { held, release } = await holdTurn();
    const controller = new AbortController();
    const waiting = db.query("INSERT INTO marks VALUES ('dropped')", [], { signal: controller.signal });
    controller.abort();
    expect(await waiting.catch((e: ApiError) => e.status)).toBe(504);
    release();
    await held;
    expect(
      await db
        .query("INSERT INTO marks VALUES ('never')", [], { signal: controller.signal })
        .catch((e: ApiError) => e.status),
    ).toBe(504);
    expect(await db.query("SELECT id FROM marks")).toEqual([]);
  });

  it("a transaction whose signal fired before its end rolls back", async () => {
    const controller = new AbortController();
    const error = await db
      .transaction(
        async (tx) => {
          await tx.query("INSERT INTO marks VALUES ('rolled-back')");
          controller.abort();
        },
        { signal: controller.signal },
      )
      .catch((e: ApiError) => e.status);
    expect(error).toBe(504);
    expect(await db.query("SELECT id FROM marks")).toEqual([]);
  });

  it("accepts statement_timeout but never fires it: a statement runs to its end", async () => {
    await db.transaction(async (tx) => {
      await tx.query("SET LOCAL statement_timeout = 50");
      expect(await tx.query("SELECT pg_sleep(0.3)::text AS slept")).toEqual([{ slept: "" }]);
    });
  });
});
