/** Loading: the data on first start only; a later start on the same PGlite directory keeps what is there. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateFixtures } from "@compute-api/fixtures";
import { captureLogs } from "@compute-api/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresServer } from "../src/index.js";
import { updateClusterMachine } from "../src/update-cluster-machine.js";

const dir = mkdtempSync(join(tmpdir(), "compute-postgres-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A logger whose lines are kept, to read what start-up said. */
function recordingLogger() {
  const { logger, lines } = captureLogs<{ msg: string }>();
  return { logger, lines: () => lines.map((l) => l.msg) };
}

describe("a second start on the same PGlite directory", () => {
  it("keeps the data, changes included, and says so", async () => {
    const first = recordingLogger();
    const one = await createPostgresServer({ pgliteDir: dir, logger: first.logger, apiKeys: { bob: "cak_bob" } });
    const alice = { id: "alice", canCreateApiKeys: true, canSearch: true };
    await updateClusterMachine(one.database, alice, "proj-alpha", "cm-alpha-01", { priceHr: { value: "7.5" } });
    await one.close();
    expect(first.lines()).toContain(`loaded 59 resources into PGlite at ${dir}`);

    const second = recordingLogger();
    // Other data is given: it is not loaded, since the directory holds data.
    const two = await createPostgresServer({
      pgliteDir: dir,
      logger: second.logger,
      fixtures: () => {
        throw new Error("the data set must not be made when the database holds data");
      },
    });
    try {
      expect(second.lines()).toContain(
        `PGlite at ${dir} already holds data (59 resources): kept, the data given is not loaded`,
      );
      expect(second.lines().some((l) => l.startsWith("applied"))).toBe(false);
      const [machine] = await two.database.query<{ price: string }>(
        "SELECT spec->'priceHr'->>'value' AS price FROM cluster_machines WHERE id = 'cm-alpha-01'",
      );
      expect(machine?.price).toBe("7.5");
      const [cluster] = await two.database.query<{ total: string }>(
        "SELECT spec->'totalPriceHr'->>'value' AS total FROM clusters WHERE id = 'cl-train-01'",
      );
      expect(cluster?.total).not.toBe("0");
      const keys = await two.database.query("SELECT key_id FROM api_keys WHERE user_id = 'bob'");
      expect(keys).toEqual([{ key_id: "default" }]);
    } finally {
      await two.close();
    }
  });
});

describe("loading", () => {
  it("loads a generated data set with every collection, totals and resourceCount computed", async () => {
    const fixtures = generateFixtures({ count: 500, seed: 3 });
    const server = await createPostgresServer({ fixtures });
    try {
      const counts = await server.database.query<{ type: string; n: number }>(
        "SELECT resource_type AS type, count(*)::int AS n FROM search_entries GROUP BY 1 ORDER BY 1",
      );
      expect(counts.reduce((sum, c) => sum + c.n, 0)).toBe(500);
      const [project] = fixtures.projects ?? [];
      const [row] = await server.database.query<{ n: number }>(
        "SELECT (spec->>'resourceCount')::int AS n FROM projects WHERE id = $1",
        [project?.id ?? ""],
      );
      const inProject = await server.database.query(
        "SELECT 1 FROM search_entries WHERE project_id = $1 AND resource_type <> 'project'",
        [project?.id ?? ""],
      );
      expect(row?.n).toBe(inProject.length);
    } finally {
      await server.close();
    }
  });

  it("refuses an apiKeys entry for a user the data does not have", async () => {
    await expect(createPostgresServer({ apiKeys: { mallory: "cak_m" } })).rejects.toThrow(
      "apiKeys: no user 'mallory' in the data",
    );
  });

  it("refuses a data set whose references do not resolve (the tables' foreign keys)", async () => {
    const server = await createPostgresServer({
      fixtures: { users: [{ id: "u", projectIds: [], billingAccountIds: [] }] },
    });
    await server.close();
    await expect(
      createPostgresServer({
        fixtures: { users: [{ id: "u", projectIds: ["proj-missing"], billingAccountIds: [] }] },
      }),
    ).rejects.toThrow(/foreign key/);
  });
});
