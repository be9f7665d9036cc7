/**
 * search_documents (migration 005): every insert into search_values adds to its entries' documents, an entry's
 * values split over two inserts included, and a database loaded before the migration gets the same documents.
 */
import { builtinFixtures, generateFixtures } from "@compute-api/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/database/database.js";
import { createPgliteDatabase } from "../src/database/pglite-database.js";
import { loadData } from "../src/load-data.js";
import { migrate, readMigrations } from "../src/migrate.js";
import { searchResources } from "../src/search-resources.js";

/** Every document, its texts split back into their values, sorted, so that the order of values does not count. */
async function documents(db: Database): Promise<unknown[]> {
  const rows = await db.query<Record<string, string | number | null>>(
    "SELECT * FROM search_documents ORDER BY entry_id",
  );
  const values = (text: unknown) => String(text).split("\x1f").slice(1, -1).sort();
  return rows.map((row) => ({ ...row, primary_text: values(row.primary_text), other_text: values(row.other_text) }));
}

describe("search documents", () => {
  const fixtures = () => generateFixtures({ count: 2000, seed: 3 });
  let before: Database;
  let after: Database;
  beforeAll(async () => {
    [before, after] = await Promise.all([createPgliteDatabase(), createPgliteDatabase()]);
    // One loaded before migration 005, then migrated; the other migrated, then loaded.
    await migrate(
      before,
      readMigrations().filter((m) => m.version < "005"),
    );
    await loadData(before, fixtures);
    await migrate(before);
    await migrate(after);
    await loadData(after, fixtures);
  });
  afterAll(async () => {
    await Promise.all([before?.close(), after?.close()]);
  });

  it("are the same for a database loaded before migration 005 as for one loaded after it", async () => {
    const made = await documents(after);
    expect(made).toHaveLength(
      (await after.query<{ n: number }>("SELECT count(*)::int AS n FROM search_entries"))[0]?.n ?? -1,
    );
    expect(await documents(before)).toEqual(made);
  });

  it("take an entry's values inserted in two statements, and a separator inside a value", async () => {
    const db = await createPgliteDatabase();
    try {
      await migrate(db);
      await loadData(db, builtinFixtures);
      const [entry] = await db.query<{ entry_id: number }>(
        "SELECT entry_id FROM search_entries WHERE resource_name = 'projects/proj-alpha/volumes/vol-alpha-data'",
      );
      const insert = "INSERT INTO search_values (entry_id, is_primary, value) VALUES ($1, $2, $3)";
      await db.query(insert, [entry?.entry_id ?? -1, true, "zz-later-name"]);
      await db.query(insert, [entry?.entry_id ?? -1, false, "zz-first\x1fzz-second"]);
      const alice = { id: "alice", canCreateApiKeys: true, canSearch: true };
      const name = "projects/proj-alpha/volumes/vol-alpha-data";
      const score = async (query: string) =>
        (await searchResources(db, alice, query)).results.find((r) => r.resourceName === name)?.score;
      // Still its own values, and the added ones: an exact name, a prefix and — past the separator — a substring.
      expect(await score("vol-alpha-data")).toBe(100);
      expect(await score("zz-later-name")).toBe(100);
      expect(await score("zz-first")).toBe(40);
      expect(await score("zz-second")).toBe(30);
      expect(await score("zz-first zz-later-name")).toBe(70);
    } finally {
      await db.close();
    }
  });
});
