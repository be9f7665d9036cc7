/**
 * The keys a start registers: a key given replaces the first user's key `default`; without one, a new key only when
 * the user has none, so that a second replica on the same database never revokes the key the first one printed
 * (on PGlite, and two compute-postgres commands on one real PostgreSQL database).
 */

import { builtinFixtures } from "@compute-api/fixtures";
import { hashApiKey } from "@compute-api/rules";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, runCli } from "../src/cli.js";
import type { Database } from "../src/database/database.js";
import { createPgliteDatabase } from "../src/database/pglite-database.js";
import { loadData } from "../src/load-data.js";
import { migrate } from "../src/migrate.js";
import { registerFirstKey } from "../src/start-up-keys.js";

describe("registerFirstKey", () => {
  let db: Database;
  const defaultKey = async () =>
    (
      await db.query<{ sha256: string }>("SELECT sha256 FROM api_keys WHERE user_id = 'alice' AND key_id = 'default'")
    )[0]?.sha256;
  beforeAll(async () => {
    db = await createPgliteDatabase();
    await migrate(db);
    await loadData(db, builtinFixtures);
  });
  afterAll(async () => {
    await db.close();
  });

  it("makes a key when the user has none, keeps it at the next start, and replaces it with a key given", async () => {
    const first = await registerFirstKey(db);
    expect(first).toMatchObject({ user: "alice", outcome: "new" });
    expect(await defaultKey()).toBe(hashApiKey(first?.key as string));
    expect(await registerFirstKey(db)).toEqual({ user: "alice", outcome: "kept" });
    expect(await defaultKey()).toBe(hashApiKey(first?.key as string));
    expect(await registerFirstKey(db, "cak_given")).toEqual({ user: "alice", outcome: "given", key: "cak_given" });
    expect(await defaultKey()).toBe(hashApiKey("cak_given"));
  });

  it("two starts at once on a database without the key register one", async () => {
    await db.query("DELETE FROM api_keys WHERE user_id = 'alice' AND key_id = 'default'");
    const outcomes = await Promise.all([registerFirstKey(db), registerFirstKey(db)]);
    expect(outcomes.map((o) => o?.outcome).sort()).toEqual(["kept", "new"]);
    const made = outcomes.find((o) => o?.outcome === "new");
    expect(await defaultKey()).toBe(hashApiKey(made?.key as string));
  });
});

describe.skipIf(skipWithoutPostgres())("two compute-postgres on one PostgreSQL database", () => {
  let postgres: Postgres;
  const started: CliResult[] = [];
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(async () => {
    await Promise.all(started.map((r) => r.server?.close()));
    await postgres?.close();
  });

  /** Runs the command in this process and collects what it prints. */
  const run = async (...argv: string[]) => {
    let out = "";
    const result = await runCli(["--port", "0", "--database-url", postgres.url, "--log-level", "silent", ...argv], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
    });
    started.push(result);
    return { ...result, out, url: result.server?.url as string };
  };
  const status = async (url: string, key: string) =>
    (await fetch(`${url}/v1/resources/search?query=type:project`, { headers: { authorization: `Bearer ${key}` } }))
      .status;

  it("the second keeps the key the first printed, says so, and the first's key works on both", async () => {
    const first = await run();
    const key = /\n {2}(cak_\S+)\n/.exec(first.out)?.[1] as string;
    const second = await run();
    expect([await status(first.url, key), await status(second.url, key)]).toEqual([200, 200]);
    expect(first.out).toContain("API key of user 'alice' (new: the database held none; later starts keep it");
    expect(second.out).toContain(
      "API key of user 'alice': the one the database holds already stays (key 'default'; set one with --api-key or COMPUTE_API_KEY)",
    );
    expect(second.out).not.toMatch(/cak_/);
    expect(second.out).toContain('curl -H "Authorization: Bearer <your API key>"');
  });
});
