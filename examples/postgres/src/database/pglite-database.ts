/**
 * The embedded adapter: PGlite (PostgreSQL compiled to WebAssembly) in memory, or in a directory of its own. It
 * runs one statement at a time in the process's own thread, which a running statement blocks: nothing can cancel
 * it, and PGlite accepts statement_timeout and lock_timeout but never fires them. So what is bounded is the wait:
 * callers take turns (turns.ts), each waiting at most `acquireTimeoutMs` (503 after), and one whose signal fires
 * while it waits never runs.
 */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import {
  type Database,
  type DatabaseLimits,
  limitsOf,
  type Queryable,
  type SqlValue,
  searchWorkMem,
} from "./database.js";
import { abortedError, mappingErrors } from "./database-errors.js";
import { lockPgliteDir } from "./pglite-lock.js";
import { oneAtATime } from "./turns.js";

type PgliteQueryable = Pick<PGlite, "query" | "exec">;

/** The statements of PGlite or of one of its transactions; `signal`: the transaction's. */
const queryable = (db: PgliteQueryable, signal?: AbortSignal): Queryable => ({
  query: async <Row>(text: string, params: readonly SqlValue[] = [], options: { signal?: AbortSignal } = {}) => {
    const fired = options.signal ?? signal;
    if (fired?.aborted) throw abortedError(fired);
    return (await db.query<Row>(text, params as unknown[])).rows;
  },
  exec: async (script) => {
    if (signal?.aborted) throw abortedError(signal);
    await db.exec(script);
  },
});

/** Options of the embedded database. */
export type PgliteDatabaseOptions = Pick<DatabaseLimits, "acquireTimeoutMs">;

/**
 * Opens PGlite with the pg_trgm extension (search's trigram index); in memory when `dir` is undefined. One
 * process at a time may open a directory: another is refused (PgliteDirInUse) until the first closes it.
 */
export async function createPgliteDatabase(dir?: string, options: PgliteDatabaseOptions = {}): Promise<Database> {
  const release = dir === undefined ? () => {} : lockPgliteDir(dir);
  let db: PGlite;
  try {
    db = await PGlite.create({ ...(dir === undefined ? {} : { dataDir: dir }), extensions: { pg_trgm } });
    await db.exec(`SET work_mem = '${searchWorkMem}'`);
  } catch (error) {
    release();
    throw error;
  }
  const turns = oneAtATime(limitsOf(options).acquireTimeoutMs);
  const top = queryable(db);
  return {
    description: dir === undefined ? "PGlite in memory" : `PGlite at ${dir}`,
    query: (text, params, options = {}) =>
      mappingErrors(() => turns.run(() => top.query(text, params, options), options.signal)),
    exec: (script) => mappingErrors(() => turns.run(() => top.exec(script))),
    transaction: (fn, { signal } = {}) =>
      mappingErrors(() =>
        turns.run(
          () =>
            db.transaction(async (tx) => {
              const result = await fn(queryable(tx, signal));
              // A request answered already (its deadline passed) or abandoned changes nothing.
              if (signal?.aborted) throw abortedError(signal);
              return result;
            }),
          signal,
        ),
      ),
    close: async () => {
      await db.close();
      release();
    },
  };
}
