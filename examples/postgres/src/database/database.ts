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

/** What one statement may be given besides its SQL. */
export interface QueryOptions {
  /**
   * Cancels the work when it fires (the request's deadline passed, or its client went away): a statement not yet
   * started never starts, one waiting for a connection stops waiting, and one running is cancelled on the server.
   * The call then rejects with a 504 ApiError.
   */
  signal?: AbortSignal;
}

/** What a transaction may be given. */
export interface TransactionOptions extends QueryOptions {
  /**
   * Whether statement_timeout and lock_timeout bound its statements; default true. False for start-up work
   * (migrations, loading a data set), which may take long and waits for another process's start-up lock.
   */
  bounded?: boolean;
}

/**
 * How long the database may take, each an option of the adapters (and of the server) with these defaults, chosen
 * so that every request is answered within seconds, well inside the server's handler timeout (30 s).
 */
export interface DatabaseLimits {
  /** Longest a statement may run (PostgreSQL's statement_timeout); then it is cancelled and answered 504. */
  statementTimeoutMs?: number | undefined;
  /**
   * Longest a statement may wait for a lock (lock_timeout), such as a PATCH behind another transaction's lock of
   * its cluster's row; then answered 503 with Retry-After. Below `acquireTimeoutMs`, so that the requests
   * stuck behind a held lock give their connections back before others give up waiting for one.
   */
  lockTimeoutMs?: number | undefined;
  /**
   * Longest a request waits for a connection (pg.Pool's connectionTimeoutMillis: an idle one, or a new one made),
   * or PGlite for its turn; then answered 503 with Retry-After rather than queued without end.
   */
  acquireTimeoutMs?: number | undefined;
}

/** The limits when none are given. */
export const defaultLimits = {
  statementTimeoutMs: 5_000,
  lockTimeoutMs: 2_000,
  acquireTimeoutMs: 5_000,
} as const satisfies DatabaseLimits;

/** The limits given, the defaults for the others. */
export function limitsOf(limits: DatabaseLimits): { [K in keyof DatabaseLimits]-?: number } {
  return {
    statementTimeoutMs: limits.statementTimeoutMs ?? defaultLimits.statementTimeoutMs,
    lockTimeoutMs: limits.lockTimeoutMs ?? defaultLimits.lockTimeoutMs,
    acquireTimeoutMs: limits.acquireTimeoutMs ?? defaultLimits.acquireTimeoutMs,
  };
}

/** Something that runs SQL: the database itself, or one transaction of it. */
export interface Queryable {
  /** Runs one statement with its parameters (`$1`, `$2`, …) and returns its rows. */
  query<Row>(text: string, params?: readonly SqlValue[], options?: QueryOptions): Promise<Row[]>;
  /**
   * Runs a script of statements without parameters (a migration file, VACUUM). Outside a transaction it is
   * start-up work, bounded by no timeout; in a transaction, by the transaction's.
   */
  exec(script: string): Promise<void>;
}

/** A database: queries, transactions, and close. */
export interface Database extends Queryable {
  /** What it is, for the log: `PGlite in memory`, `PGlite at ./data`, `PostgreSQL at host:5432/db`. */
  readonly description: string;
  /**
   * Runs fn in one transaction (READ COMMITTED) on one connection: committed when fn resolves, rolled back when
   * it throws (and the error rethrown). Transactions of PGlite run one at a time; those of PostgreSQL concurrently.
   * The statements of `tx` take the transaction's signal.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
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
