/**
 * Cancelling a running statement on the server: node-postgres (8.23) takes no AbortSignal, and its
 * `Client#cancel` needs the driver's internal query object, so the statement is cancelled as a person would,
 * with `pg_cancel_backend(pid)` on a connection of its own (never one of the pool's, which may all be busy).
 */
import type { Logger } from "@compute-api/runtime";
import pg from "pg";

/** Cancels whatever statement a checked-out connection runs; resolves when done or given up (never rejects). */
export type Canceller = (client: pg.PoolClient) => Promise<void>;

/**
 * A canceller on the server of `url`. If the cancel cannot be sent (the server is out of connections, or down),
 * it is logged: statement_timeout still ends the statement.
 */
export function backendCanceller(url: string, connectTimeoutMs: number, logger: Logger): Canceller {
  return async (client) => {
    // The server's process id of the connection, from its BackendKeyData: a field @types/pg does not declare.
    const pid = (client as unknown as { processID?: unknown }).processID;
    if (typeof pid !== "number") return;
    const canceller = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    canceller.on("error", () => {});
    try {
      await canceller.connect();
      await canceller.query("SELECT pg_cancel_backend($1)", [pid]);
    } catch (error) {
      logger.warn({ err: error }, "could not cancel a statement; statement_timeout ends it");
    } finally {
      await canceller.end().catch(() => {});
    }
  };
}
