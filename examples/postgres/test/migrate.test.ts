/** Migrations: applied once, in order, recorded; an edited migration is refused. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/database/database.js";
import { createPgliteDatabase } from "../src/database/pglite-database.js";
import { migrate, readMigrations } from "../src/migrate.js";

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
    ]);
    expect(await migrate(db)).toEqual(files.map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
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
    expect(await migrate(db, [...readMigrations(), added])).toEqual(["999_later"]);
  });
});
