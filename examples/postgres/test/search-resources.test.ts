/** searchResources on PGlite: the stub's answers for many queries on the built-in and a generated data set. */

import { generateFixtures } from "@compute-api/fixtures";
import { maxSearchResults as maxResults } from "@compute-api/rules";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresServer, type PostgresServer } from "../src/index.js";
import { primarySearchSql, searchSql, termsOf } from "../src/search-resources.js";
import { searchSuite } from "./support/search-suite.js";
import { pgliteTarget } from "./support/targets.js";

searchSuite(pgliteTarget);

describe("the one-term search over ids and names", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await createPostgresServer({ fixtures: generateFixtures({ count: 3000, seed: 5 }) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(["train", "proj", "cl", "dc", "a", "-0", "00", "gpu", "ml", "edge"])(
    "gives the full search's results whenever it fills the cap (%s)",
    async (term) => {
      for (const [user, type] of [
        ["alice", null],
        ["bob", null],
        ["alice", "cluster"],
      ] as const) {
        const { slots, params } = termsOf([term]);
        const [slot] = slots;
        if (!slot) throw new Error("no slot");
        const all = [user, type, maxResults, ...params];
        const primary = await server.database.query(primarySearchSql(slot), all);
        const full = await server.database.query(searchSql(slots), all);
        if (primary.length === maxResults) expect(primary).toEqual(full);
        else expect(primary.length).toBeLessThan(maxResults);
      }
    },
  );
});
