/**
 * The server adapter: a pg.Pool on a PostgreSQL server, such as `postgres://user@host:5432/db` (--database-url).
 * Every connection is bounded in time (statement_timeout, lock_timeout, the wait for a connection), survives its
 * server (an 'error' on any connection, idle or checked out, is logged, never thrown), and a statement whose
 * signal fires is cancelled on the server. Failures of the database are answered as database-errors.ts says.
 */
import { createLogger, type Logger } from "@compute-api/runtime";
import pg from "pg";
import {
  type Database,
  type DatabaseLimits,
  limitsOf,
  type Queryable,
  type SqlValue,
  searchWorkMem,
} from "./database.js";
import { abortedError, mappingErrors } from "./database-errors.js";
import { backendCanceller, type Canceller } from "./pool-cancel.js";

/** Options of the pool; the rest are pg's defaults. */
export interface PoolDatabaseOptions extends DatabaseLimits {
  /** Most connections at once; default 10 (pg's). */
  max?: number;
  /** Where a lost connection or a failed cancel is logged (warn); default silent. */
  logger?: Logger;
}

/**
 * Connections on which a cancel was sent: discarded when released, as a cancel that reached the server late could
 * otherwise cancel the next statement of whoever takes the connection next.
 */
const cancelled = new WeakSet<pg.PoolClient>();

/** Gives the connection back to the pool, or ends it when it is broken or a cancel was sent on it. */
function release(client: pg.PoolClient, broken?: Error): void {
  client.release(broken ?? cancelled.has(client));
}

/** A connection of the pool; waiting for one stops when the signal fires (the one had later is given back). */
async function acquire(pool: pg.Pool, signal: AbortSignal | undefined): Promise<pg.PoolClient> {
  if (!signal) return pool.connect();
  if (signal.aborted) throw abortedError(signal);
  const connecting = pool.connect();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(abortedError(signal));
      connecting.then(
        (client) => release(client),
        () => {},
      );
    };
    signal.addEventListener("abort", onAbort, { once: true });
    connecting.then(
      (client) => {
        signal.removeEventListener("abort", onAbort);
        if (!signal.aborted) resolve(client);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Runs one statement on the connection: never started once the signal has fired, cancelled when it fires. */
async function statement(
  client: pg.PoolClient,
  cancel: Canceller,
  text: string,
  params: readonly SqlValue[] | undefined,
  signal: AbortSignal | undefined,
): Promise<pg.QueryResult> {
  if (signal?.aborted) throw abortedError(signal);
  if (!signal) return client.query(text, params as unknown[] | undefined);
  const onAbort = () => {
    cancelled.add(client);
    void cancel(client);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await client.query(text, params as unknown[] | undefined);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** The statements of a checked-out connection; `signal`: the transaction's, for each statement not given its own. */
const onConnection = (client: pg.PoolClient, cancel: Canceller, signal?: AbortSignal): Queryable => ({
  query: async <Row>(text: string, params: readonly SqlValue[] = [], options: { signal?: AbortSignal } = {}) =>
    (await statement(client, cancel, text, params, options.signal ?? signal)).rows as Row[],
  exec: async (script) => {
    // Without parameters pg sends the simple protocol, which runs several statements.
    await statement(client, cancel, script, undefined, signal);
  },
});

/** Opens a pool on the URL (connections are made on first use). */
export function createPoolDatabase(url: string, options: PoolDatabaseOptions = {}): Database {
  const limits = limitsOf(options);
  const logger = options.logger ?? createLogger({ level: "silent" });
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    // Bounds both waiting for an idle connection and making a new one.
    connectionTimeoutMillis: limits.acquireTimeoutMs,
    statement_timeout: limits.statementTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
    options: `-c work_mem=${searchWorkMem}`,
  });
  // node-postgres emits 'error' on a connection whose server ends it (pg_terminate_backend, a restart) even while
  // it is checked out between two statements, where no listener of the pool's is: unhandled, that ends the process.
  // Each connection gets its own listener; the statement it was running, or its next, fails, and only that request.
  pool.on("connect", (client) => {
    client.on("error", (error) => logger.warn({ err: error }, "database connection lost"));
  });
  // The pool also emits an idle connection's error, after it has dropped the connection; it is logged above.
  pool.on("error", () => {});
  const cancel = backendCanceller(url, limits.acquireTimeoutMs, logger);
  const where = new URL(url);
  return {
    description: `PostgreSQL at ${where.host}${where.pathname}`,
    query: <Row>(text: string, params: readonly SqlValue[] = [], { signal }: { signal?: AbortSignal } = {}) =>
      mappingErrors(async () => {
        const client = await acquire(pool, signal);
        try {
          return (await statement(client, cancel, text, params, signal)).rows as Row[];
        } finally {
          release(client);
        }
      }),
    exec: (script) =>
      mappingErrors(async () => {
        // Start-up work (migrations, VACUUM) that may take long: no timeout, then the connection's own again.
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query("SET statement_timeout = 0; SET lock_timeout = 0");
          await client.query(script);
          await client.query("RESET statement_timeout; RESET lock_timeout");
        } catch (error) {
          broken = error as Error;
          throw error;
        } finally {
          release(client, broken);
        }
      }),
    transaction: (fn, { signal, bounded = true } = {}) =>
      mappingErrors(async () => {
        const client = await acquire(pool, signal);
        // A connection whose ROLLBACK failed is broken: the pool discards it instead of handing it out again.
        let broken: Error | undefined;
        try {
          await statement(client, cancel, bounded ? "BEGIN" : unboundedBegin, undefined, signal);
          const result = await fn(onConnection(client, cancel, signal));
          // A request answered already (its deadline passed) or abandoned changes nothing.
          if (signal?.aborted) throw abortedError(signal);
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch((rollbackError: Error) => {
            broken = rollbackError;
          });
          throw error;
        } finally {
          release(client, broken);
        }
      }),
    close: () => pool.end(),
  };
}

/** A transaction of start-up work: neither timeout bounds it (SET LOCAL: the connection's own return at its end). */
const unboundedBegin = "BEGIN; SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0";
