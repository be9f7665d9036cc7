/**
 * Migrations: applied once, in order, recorded; an edited migration is refused; a database migrated by a newer
 * release (a migration this code does not know) is served, with a warning.
 */
import { captureLogs } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/database/database.js";
import { createPgliteDatabase } from "../src/database/pglite-database.js";
import { migrate, readMigrations } from "../src/migrate.js";
import { startPostgresServer } from "../src/postgres-server.js";

describe("migrate", () => {
  let db: Database;
  beforeAll(async () => {
    db = await createPgliteDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it("applies every migration file once, in name order, and records each with its SHA-256", async () => {
    const files = readMigrations();
    expect(files.map((m) => m.version)).toEqual([
      "001_accounts",
      "002_resources",
      "003_search",
      "004_search_primary_trigrams",
      "005_search_documents",
    ]);
    expect(await migrate(db)).toEqual({ applied: files.map((m) => m.version), unknown: [] });
    expect(await migrate(db)).toEqual({ applied: [], unknown: [] });
    const recorded = await db.query<{ version: string; sha256: string }>(
      "SELECT version, sha256 FROM schema_migrations ORDER BY version",
    );
    expect(recorded).toEqual(files.map(({ version, sha256 }) => ({ version, sha256 })));
  });

  it("refuses a migration changed since it was applied, and applies nothing", async () => {
    const files = readMigrations();
    const edited = files.map((m, i) => (i === 1 ? { ...m, sha256: "0".repeat(64) } : m));
    const added = { version: "999_later", sql: "CREATE TABLE later (id int)", sha256: "1".repeat(64) };
    await expect(migrate(db, [...edited, added])).rejects.toThrow(
      "migration 002_resources has changed since it was applied; add a new one instead",
    );
    expect(await db.query("SELECT 1 FROM schema_migrations WHERE version = '999_later'")).toEqual([]);
  });

  it("applies a migration added later, after those applied", async () => {
    const added = { version: "999_later", sql: "CREATE TABLE later (id int)", sha256: "1".repeat(64) };
    expect(await migrate(db, [...readMigrations(), added])).toEqual({ applied: ["999_later"], unknown: [] });
  });

  it("names the migrations the database holds and the code does not know (a newer release applied them)", async () => {
    expect(await migrate(db)).toEqual({ applied: [], unknown: ["999_later"] });
  });

  it("a server on such a database starts, serves, and warns in one line", async () => {
    const { lines, logger } = captureLogs<{ level: number; msg: string }>();
    const server = await startPostgresServer({ database: db, logger, port: 0, apiKeys: { alice: "cak_migrated" } });
    try {
      expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
        "PGlite in memory holds migrations this release does not know (999_later): a newer release migrated it; serving on, as migrations only add",
      ]);
      const answer = await fetch(`${server.url}/v1/resources/search?query=type:project`, {
        headers: { authorization: "Bearer cak_migrated" },
      });
      expect(answer.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
