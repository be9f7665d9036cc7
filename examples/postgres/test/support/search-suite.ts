/**
 * The search differential: for many queries and every user, the SQL search answers what the stub's in-memory
 * Store.search answers — the same results, scores, order and objects, or the same error.
 */

import { builtinFixtures, type Fixtures, generateFixtures } from "@compute-api/fixtures";
import { ApiError } from "@compute-api/server";
import { Store } from "@compute-api/stub-server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/authenticate.js";
import { createPostgresServer, type PostgresServer } from "../../src/index.js";
import { searchResources } from "../../src/search-resources.js";
import { queriesFor, withUnicode } from "./queries.js";
import type { Target, TargetDatabase } from "./targets.js";

/** What a search gave: its results, or its error's status and body. */
async function outcome(search: () => unknown): Promise<unknown> {
  try {
    return { results: await search() };
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, body: error.toBody() };
    throw error;
  }
}

const dataSets: [string, () => Fixtures, number][] = [
  ["the built-in data (and Unicode names)", () => withUnicode(builtinFixtures()), 150],
  ["a generated data set of 3,000 resources", () => generateFixtures({ count: 3000, seed: 7 }), 60],
];

/** Declares the differential on the target. */
export function searchSuite(target: Target): void {
  describe.each(dataSets)(`search on ${target.name}, %s`, (_, makeFixtures, count) => {
    const fixtures = makeFixtures();
    const queries = queriesFor(fixtures, count, 11);
    let database: TargetDatabase;
    let server: PostgresServer;
    let store: Store;

    beforeAll(async () => {
      database = await target.open();
      server = await createPostgresServer({ ...database.options, fixtures });
      store = new Store(fixtures);
    });
    afterAll(async () => {
      await server?.close();
      await database?.close();
    });

    it.each(fixtures.users.map((u) => [u.id, u] as const))("gives %s the stub's answers", async (id, user) => {
      store.addApiKey(id, "default", `cak_${id}`);
      const stubUser = store.authenticate(`cak_${id}`);
      if (!stubUser) throw new Error(`no user ${id}`);
      const principal: Principal = {
        id,
        canCreateApiKeys: user.canCreateApiKeys ?? true,
        canSearch: user.canSearch ?? true,
      };
      let compared = 0;
      for (const query of queries) {
        const mine = await outcome(() => searchResources(server.database, principal, query).then((r) => r.results));
        const theirs = await outcome(() => store.search(stubUser, query));
        expect(mine, `query ${JSON.stringify(query)} for ${id}`).toEqual(theirs);
        compared++;
      }
      expect(compared).toBe(queries.length);
    });
  });
}
