/**
 * @compute-api/example-postgres: the compute service's interface implemented on PostgreSQL with
 * @compute-api/server — the SQL a team starting the real service would write, run on PGlite or a PostgreSQL server.
 */
export {
  type Database,
  type DatabaseLimits,
  defaultLimits,
  type Queryable,
  type QueryOptions,
  type SqlValue,
  type TransactionOptions,
} from "./database/database.js";
export { createPgliteDatabase, type PgliteDatabaseOptions } from "./database/pglite-database.js";
export { createPoolDatabase, type PoolDatabaseOptions } from "./database/pool-database.js";
export { migrate } from "./migrate.js";
export {
  createPostgresServer,
  defaultKeyId,
  type PostgresServer,
  type PostgresServerOptions,
  type RunningPostgresServer,
  type StartOptions,
  startPostgresServer,
} from "./postgres-server.js";
