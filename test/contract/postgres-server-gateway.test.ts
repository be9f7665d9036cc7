/**
 * The contract suite through the validation gateway in front of the Postgres example on a real PostgreSQL server;
 * skipped with one line where PostgreSQL is absent, never under CI.
 */

import { skipWithoutPostgres } from "@compute-api/test-support/postgres";
import { describe } from "vitest";
import { contractSuite } from "./support/contract-suite.js";
import { postgresServerBackend } from "./support/postgres-backends.js";

describe.skipIf(skipWithoutPostgres())("on a PostgreSQL server, through the gateway", () => {
  contractSuite("gateway", { backend: postgresServerBackend });
});
