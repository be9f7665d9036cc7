/**
 * Applies the SQL files of migrations/ (`001_accounts.sql`, …) in name order, each once, recorded in
 * `schema_migrations` with the SHA-256 of its text. All run in one transaction under an advisory lock, so two
 * processes starting at once on an empty database do not both apply them: the second waits, then finds them done.
 * A database that holds migrations this code does not know (a newer release ran on it) is served with a warning:
 * migrations only add (expand, then contract in a later release), so an older release keeps working on it, as it
 * must while a rolling upgrade runs both, or after a roll back.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Database } from "./database/database.js";

/** The folder of the migration files. */
export const migrationsDir = new URL("../migrations/", import.meta.url);

/** The key of the advisory lock that start-up (migrations, then loading the data) holds: any fixed bigint. */
export const startupLockKey = 7_382_001;

/** A migration file. */
export interface Migration {
  /** The file name without `.sql`, such as `001_accounts`. */
  version: string;
  sql: string;
  sha256: string;
}

/** The migration files, in the order they apply. */
export function readMigrations(dir: URL = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d+_[\w-]+\.sql$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(new URL(name, dir), "utf8");
      return {
        version: name.slice(0, -".sql".length),
        sql,
        sha256: createHash("sha256").update(sql).digest("hex"),
      };
    });
}

/** What migrate did, and found. */
export interface MigrateResult {
  /** The versions applied now, in order. */
  applied: string[];
  /** The versions the database records that are not among the files: applied by a newer release. */
  unknown: string[];
}

/**
 * Applies the migrations not yet applied. Throws when a migration applied before has changed since (a migration is
 * never edited once released: a new one is added).
 */
export async function migrate(db: Database, migrations: Migration[] = readMigrations()): Promise<MigrateResult> {
  // Not bounded by statement_timeout or lock_timeout: a migration may take long, and the lock waits for another
  // process's start-up (migrations and loading) to end.
  return db.transaction(
    async (tx) => {
      // Released at commit or rollback; taken before anything, even creating the table that records migrations.
      await tx.query("SELECT pg_advisory_xact_lock($1)", [startupLockKey]);
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
          version text PRIMARY KEY,
          sha256 text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`,
      );
      const recorded = new Map(
        (await tx.query<{ version: string; sha256: string }>("SELECT version, sha256 FROM schema_migrations")).map(
          (row) => [row.version, row.sha256],
        ),
      );
      const applied: string[] = [];
      for (const migration of migrations) {
        const sha256 = recorded.get(migration.version);
        if (sha256 !== undefined) {
          if (sha256 !== migration.sha256)
            throw new Error(`migration ${migration.version} has changed since it was applied; add a new one instead`);
          continue;
        }
        await tx.exec(migration.sql);
        await tx.query("INSERT INTO schema_migrations (version, sha256) VALUES ($1, $2)", [
          migration.version,
          migration.sha256,
        ]);
        applied.push(migration.version);
      }
      const known = new Set(migrations.map((m) => m.version));
      const unknown = [...recorded.keys()].filter((version) => !known.has(version)).sort();
      return { applied, unknown };
    },
    { bounded: false },
  );
}
