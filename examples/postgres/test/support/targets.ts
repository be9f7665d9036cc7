/**
 * Where the example's suites run: PGlite in memory (always), or a real PostgreSQL server
 * (@compute-api/test-support/postgres), each suite with a database of its own.
 */
import pg from "pg";
import type { PostgresServerOptions } from "../../src/index.js";

/** A database a suite can start servers on: the options that name it, and close() for what open() made. */
export interface TargetDatabase {
  options: Pick<PostgresServerOptions, "databaseUrl" | "pgliteDir">;
  close(): Promise<void>;
}

/** A kind of database the suites run on. */
export interface Target {
  name: string;
  /** An empty database. */
  open(): Promise<TargetDatabase>;
}

/** PGlite in memory: each server opens its own, empty. */
export const pgliteTarget: Target = {
  name: "PGlite",
  open: async () => ({ options: {}, close: async () => {} }),
};

let databases = 0;

/** A PostgreSQL server: each open() creates a database of its own on it (dropped by close()). */
export function postgresTarget(url: () => string): Target {
  return {
    name: "PostgreSQL",
    open: async () => {
      const name = `example_${process.pid}_${++databases}`;
      const admin = new pg.Client({ connectionString: url() });
      await admin.connect();
      // An identifier cannot be a parameter; this one is made of digits and a fixed prefix.
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const databaseUrl = new URL(url());
      databaseUrl.pathname = `/${name}`;
      return {
        options: { databaseUrl: databaseUrl.href },
        close: async () => {
          const client = new pg.Client({ connectionString: url() });
          await client.connect();
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await client.end();
        },
      };
    },
  };
}
