/**
 * The Postgres example (examples/postgres) as a backend of the contract suite and the conformance runner: on
 * embedded PGlite, and on a real PostgreSQL server of its own (@compute-api/test-support/postgres), each serving the
 * built-in data with the keys it is given.
 */
import { startPostgresServer } from "@compute-api/example-postgres";
import { startPostgres } from "@compute-api/test-support/postgres";
import type { Backend } from "./contract-suite.js";

/** The example on PGlite in memory: a fresh database per start. */
export const pgliteBackend: Backend = {
  name: "the Postgres example on PGlite",
  start: ({ apiKeys, compress }) => startPostgresServer({ port: 0, host: "127.0.0.1", apiKeys, compress }),
  faults: false,
};

/** The example on a PostgreSQL server started for it (and stopped with it). */
export const postgresServerBackend: Backend = {
  name: "the Postgres example on a PostgreSQL server",
  start: async ({ apiKeys, compress }) => {
    const postgres = await startPostgres();
    try {
      const server = await startPostgresServer({
        port: 0,
        host: "127.0.0.1",
        apiKeys,
        compress,
        databaseUrl: postgres.url,
      });
      return {
        url: server.url,
        close: async () => {
          await server.close();
          await postgres.close();
        },
      };
    } catch (error) {
      await postgres.close();
      throw error;
    }
  },
  faults: false,
};
