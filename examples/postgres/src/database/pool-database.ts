/** The server adapter: a pg.Pool on a PostgreSQL server, such as `postgres://user@host:5432/db` (DATABASE_URL). */
import pg from "pg";
import { type Database, type Queryable, type SqlValue, searchWorkMem } from "./database.js";

const queryable = (db: pg.Pool | pg.PoolClient): Queryable => ({
  query: async <Row>(text: string, params: readonly SqlValue[] = []) =>
    (await db.query(text, params as unknown[])).rows as Row[],
  exec: async (script) => {
    // Without parameters pg sends the simple protocol, which runs several statements.
    await db.query(script);
  },
});

/** Options of the pool; the rest are pg's defaults. */
export interface PoolDatabaseOptions {
  /** Most connections at once; default 10 (pg's). */
  max?: number;
}

/** Opens a pool on the URL (connections are made on first use). */
export function createPoolDatabase(url: string, options: PoolDatabaseOptions = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, options: `-c work_mem=${searchWorkMem}` });
  // An idle connection the server ends (a restart) is dropped by the pool; it must not crash the process.
  pool.on("error", () => {});
  const where = new URL(url);
  return {
    description: `PostgreSQL at ${where.host}${where.pathname}`,
    ...queryable(pool),
    transaction: async (fn) => {
      const client = await pool.connect();
      // A connection whose ROLLBACK failed is broken: the pool discards it instead of handing it out again.
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await fn(queryable(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
