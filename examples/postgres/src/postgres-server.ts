/**
 * The compute service on PostgreSQL: opens the database (PGlite, or a server through a URL), applies the
 * migrations, loads the data on first start, registers the keys given, and builds the app with
 * @compute-api/server, whose handlers are the SQL operations of this folder. `startPostgresServer` also listens.
 */
import { loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { builtinFixtures, defaultKeyId, type Fixtures, loadFixtures } from "@compute-api/fixtures";
import { createLogger, type Logger } from "@compute-api/runtime";
import {
  type ComputeServer,
  createComputeServer,
  type Listening,
  listen,
  type ResponseMode,
} from "@compute-api/server";
import { authenticate, type Principal } from "./authenticate.js";
import { createApiKey } from "./create-api-key.js";
import type { Database, DatabaseLimits } from "./database/database.js";
import { createPgliteDatabase } from "./database/pglite-database.js";
import { createPoolDatabase } from "./database/pool-database.js";
import { loadData } from "./load-data.js";
import { migrate } from "./migrate.js";
import { checkPortFree } from "./port-check.js";
import { searchResources } from "./search-resources.js";
import { registerApiKey } from "./start-up-keys.js";
import { updateClusterMachine } from "./update-cluster-machine.js";

/** The key id under which `apiKeys` are registered: the stub's (@compute-api/fixtures' `defaultKeyId`). */
export { defaultKeyId };

/**
 * Options of the PostgreSQL server. The database's limits (`statementTimeoutMs`, `lockTimeoutMs`,
 * `acquireTimeoutMs`; database.ts has their defaults) apply to a database the server opens, not to one given.
 */
export interface PostgresServerOptions extends DatabaseLimits {
  /**
   * Where the data lives: a database of your own (left open by close()), or `databaseUrl` (a PostgreSQL server,
   * through a pg.Pool), or `pgliteDir` (PGlite in that directory); none of them: PGlite in memory.
   */
  database?: Database;
  /** A PostgreSQL URL, such as `postgres://user@localhost:5432/compute` (the command line's --database-url). */
  databaseUrl?: string;
  /** A directory for PGlite's files, kept between starts. */
  pgliteDir?: string;
  /** The data loaded into an empty database (or a function that makes it, called only then); default the stub's built-in data. */
  fixtures?: Fixtures | (() => Fixtures);
  /** A fixture file (.json, .yaml, .yml) to load instead of `fixtures`, checked as the stub's `--data` is. */
  dataFile?: string;
  /** API keys by user id, each registered with the key id `default` at every start: `{ alice: "cak_…" }`. */
  apiKeys?: Record<string, string>;
  /** Where the request lines and start-up go (pino); default silent. */
  logger?: Logger;
  /** What a response that breaks the spec gets (@compute-api/server's option); default `enforce` (a 500). */
  responses?: ResponseMode;
  /** Origins allowed by CORS; default `*` (any), as the stub's. */
  corsOrigins?: string[];
  /** Compress answers as the caller's Accept-Encoding allows; default off. */
  compress?: boolean;
  /** The bundled spec; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /** How long a request may take before it is answered 504 and its queries cancelled (the server kit's); default 30 s. */
  handlerTimeoutMs?: number;
}

/** How long GET /readyz waits for its `SELECT 1`: a database slower than that cannot serve requests either. */
export const readyTimeoutMs = 2_000;

/** A built server: the app to serve, its database, and close() for what it holds. */
export interface PostgresServer {
  /** The Express app; it never listens by itself. */
  app: ComputeServer["app"];
  /** The database it serves from. */
  database: Database;
  /** Closes the database when the server opened it (not one given as `database`). */
  close(): Promise<void>;
  /** Marks the server as draining: its /readyz answers 503 from now on. */
  drain(): void;
}

/** The database the options name; owned: whether the server opened it (and so closes it). */
async function openDatabase(
  options: PostgresServerOptions,
  logger: Logger,
): Promise<{ database: Database; owned: boolean }> {
  if (options.database) return { database: options.database, owned: false };
  const { statementTimeoutMs, lockTimeoutMs, acquireTimeoutMs } = options;
  if (options.databaseUrl) {
    const pool = createPoolDatabase(options.databaseUrl, {
      statementTimeoutMs,
      lockTimeoutMs,
      acquireTimeoutMs,
      logger,
    });
    return { database: pool, owned: true };
  }
  return { database: await createPgliteDatabase(options.pgliteDir, { acquireTimeoutMs }), owned: true };
}

/** Builds the server: database ready (migrated, loaded), keys registered, every validator compiled. */
export async function createPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const spec = options.spec ?? loadSpec();
  const logger = options.logger ?? createLogger({ level: "silent" });
  const { database: db, owned } = await openDatabase(options, logger);
  try {
    const { applied, unknown } = await migrate(db);
    if (applied.length > 0) logger.info({ migrations: applied }, `applied ${applied.length} migrations`);
    if (unknown.length > 0)
      logger.warn(
        { migrations: unknown },
        `${db.description} holds migrations this release does not know (${unknown.join(", ")}): a newer release migrated it; serving on, as migrations only add`,
      );
    const { fixtures, dataFile } = options;
    const { loaded, resources } = await loadData(db, () =>
      dataFile
        ? loadFixtures(dataFile, spec)
        : typeof fixtures === "function"
          ? fixtures()
          : (fixtures ?? builtinFixtures()),
    );
    logger.info(
      { database: db.description, resources },
      loaded
        ? `loaded ${resources} resources into ${db.description}`
        : `${db.description} already holds data (${resources} resources): kept, the data given is not loaded`,
    );
    for (const [userId, key] of Object.entries(options.apiKeys ?? {}))
      await registerApiKey(db, userId, defaultKeyId, key);

    const server = await createComputeServer<Principal>({
      spec,
      logger,
      authenticate: (token, _request, signal) => authenticate(db, token, signal),
      handlers: {
        updateClusterMachine: ({ principal, path, body, signal }) =>
          updateClusterMachine(db, principal, path.projectId, path.id, body, signal),
        createApiKey: ({ principal, body, signal }) => createApiKey(db, principal, body.apikeyId, signal),
        searchResources: ({ principal, query, signal }) => searchResources(db, principal, query.query, signal),
      },
      // Ready when the database answers a trivial query soon: a connection can be had, and the server is up.
      ready: (signal) =>
        db.query("SELECT 1", [], { signal: AbortSignal.any([signal, AbortSignal.timeout(readyTimeoutMs)]) }),
      ...(options.handlerTimeoutMs === undefined ? {} : { handlerTimeoutMs: options.handlerTimeoutMs }),
      responses: options.responses ?? "enforce",
      cors: options.corsOrigins ?? ["*"],
      compress: options.compress ?? false,
    });
    return {
      app: server.app,
      database: db,
      drain: () => server.drain(),
      close: async () => {
        await server.close();
        if (owned) await db.close();
      },
    };
  } catch (error) {
    if (owned) await db.close().catch(() => {});
    throw error;
  }
}

/** The port compute-postgres listens on by default: the stub's (4010) plus one, so that both can run at once. */
export const defaultPort = 4011;

/** Options of a listening server. */
export interface StartOptions extends PostgresServerOptions {
  /** Port; 0 picks a free one. Default 4011. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
}

/** A listening server, shaped as the stub's RunningStub. */
export interface RunningPostgresServer {
  server: Listening["server"];
  /** Base URL, such as `http://127.0.0.1:4010`. */
  url: string;
  /** The database it serves from. */
  database: Database;
  /** Stops accepting connections, lets requests in flight finish (at most `graceMs`), then closes the database. */
  close(graceMs?: number): Promise<void>;
  /**
   * The drain a load balancer can follow, as the gateway's: `/readyz` answers 503, answers close their connection,
   * idle connections close after `graceMs`, requests still running at `timeoutMs` are cut; then the database closes.
   */
  drain(times: { graceMs: number; timeoutMs: number }): Promise<void>;
}

/**
 * Builds the server and listens; rejects if the address is taken — checked first too, so that a taken port fails
 * the start at once rather than after the migrations and the data's load.
 */
export async function startPostgresServer(options: StartOptions = {}): Promise<RunningPostgresServer> {
  const address = { port: options.port ?? defaultPort, host: options.host ?? "127.0.0.1" };
  await checkPortFree(address.port, address.host);
  const logger = options.logger ?? createLogger({ level: "silent" });
  const built = await createPostgresServer({ ...options, logger });
  let listening: Listening;
  try {
    listening = await listen(built.app, address);
  } catch (error) {
    await built.close();
    throw error;
  }
  return {
    server: listening.server,
    url: listening.url,
    database: built.database,
    close: async (graceMs) => {
      await listening.close(graceMs);
      await built.close();
    },
    drain: async ({ graceMs, timeoutMs }) => {
      built.drain();
      await listening.drain({ graceMs, timeoutMs, logger });
      await built.close();
    },
  };
}
