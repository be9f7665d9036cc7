/**
 * The same suites on a real PostgreSQL server (Debian's, started by @compute-api/test-support/postgres;
 * skipped with one line without it, except under CI), each with a database of its own, the search cost over
 * 100,000 generated resources among them; and two servers starting at once on one empty database.
 */

import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresServer } from "../src/index.js";
import { consistencySuite } from "./support/consistency-suite.js";
import { operationsSuite } from "./support/operations-suite.js";
import { searchCostSuite } from "./support/search-cost-suite.js";
import { searchSuite } from "./support/search-suite.js";
import { postgresTarget } from "./support/targets.js";

describe.skipIf(skipWithoutPostgres())("on PostgreSQL", () => {
  let postgres: Postgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(async () => {
    await postgres?.close();
  });
  const target = postgresTarget(() => postgres.url);

  searchSuite(target);
  operationsSuite(target);
  consistencySuite(target);
  searchCostSuite(target, {
    count: 100_000,
    loadTimeoutMs: 900_000,
    concurrent: true,
    serverLog: () => postgres.log(),
  });

  it("two servers starting at once on one empty database: one migrates and loads, the other waits and keeps", async () => {
    const database = await target.open();
    try {
      const servers = await Promise.all([
        createPostgresServer({ ...database.options }),
        createPostgresServer({ ...database.options }),
      ]);
      try {
        const [db] = servers.map((s) => s.database);
        const counts = await db?.query<{ migrations: number; users: number; entries: number }>(
          `SELECT (SELECT count(*) FROM schema_migrations)::int AS migrations,
             (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM search_entries)::int AS entries`,
        );
        expect(counts).toEqual([{ migrations: 5, users: 5, entries: 59 }]);
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    } finally {
      await database.close();
    }
  });
});
