/** The embedded adapter: PGlite (PostgreSQL compiled to WebAssembly) in memory, or in a directory of its own. */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { type Database, type Queryable, type SqlValue, searchWorkMem } from "./database.js";

type PgliteQueryable = Pick<PGlite, "query" | "exec">;

const queryable = (db: PgliteQueryable): Queryable => ({
  query: async <Row>(text: string, params: readonly SqlValue[] = []) =>
    (await db.query<Row>(text, params as unknown[])).rows,
  exec: async (script) => {
    await db.exec(script);
  },
});

/**
 * Opens PGlite with the pg_trgm extension (search's trigram index); in memory when `dir` is undefined. One
 * process at a time may open a directory; PGlite runs one query or transaction at a time.
 */
export async function createPgliteDatabase(dir?: string): Promise<Database> {
  const db = await PGlite.create({ ...(dir === undefined ? {} : { dataDir: dir }), extensions: { pg_trgm } });
  await db.exec(`SET work_mem = '${searchWorkMem}'`);
  return {
    description: dir === undefined ? "PGlite in memory" : `PGlite at ${dir}`,
    ...queryable(db),
    transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
    close: () => db.close(),
  };
}
