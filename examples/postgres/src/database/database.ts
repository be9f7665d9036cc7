/**
 * The little the example needs of a database: parameterized queries, multi-statement scripts (migrations) and
 * transactions. Two adapters implement it: PGlite (embedded, pglite-database.ts) and a pg.Pool (pool-database.ts).
 */

/** Values a query may be given: its parameters are always sent apart from the SQL text, never spliced into it. */
export type SqlValue = string | number | boolean | null | readonly string[] | readonly number[] | readonly boolean[];

/**
 * The memory a sort or hash of one query may use before it spills to disk, set on every connection: a broad search
 * (a term most resources hold) aggregates a row per matching value; PostgreSQL's default of 4MB spills it.
 */
export const searchWorkMem = "64MB";

/** Something that runs SQL: the database itself, or one transaction of it. */
export interface Queryable {
  /** Runs one statement with its parameters (`$1`, `$2`, …) and returns its rows. */
  query<Row>(text: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** Runs a script of statements without parameters (a migration file). */
  exec(script: string): Promise<void>;
}

/** A database: queries, transactions, and close. */
export interface Database extends Queryable {
  /** What it is, for the log: `PGlite in memory`, `PGlite at ./data`, `PostgreSQL at host:5432/db`. */
  readonly description: string;
  /**
   * Runs fn in one transaction (READ COMMITTED) on one connection: committed when fn resolves, rolled back when
   * it throws (and the error rethrown). Transactions of PGlite run one at a time; those of PostgreSQL concurrently.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Closes the connections (or the embedded database). */
  close(): Promise<void>;
}

/** The SQLSTATE of an error from either adapter (both give PostgreSQL's `code`), such as `23505`. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The constraint an integrity error names (`constraint` in both adapters), such as `api_keys_user_key_id`. */
export function violatedConstraint(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return typeof constraint === "string" ? constraint : undefined;
}
