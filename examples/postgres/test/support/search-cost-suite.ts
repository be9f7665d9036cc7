/**
 * The search's cost bound, as work done rather than time: over a generated data set, each of the most expensive
 * searches a client can send (8 terms that every resource holds) fills the cap and, in its plan as the database ran
 * it (`EXPLAIN ANALYZE`), reads each document at most once; a cheap search sent beside one is answered before it
 * where the database runs statements at once, after it where it runs one at a time; and on PostgreSQL a costly
 * search whose caller leaves is cancelled on the server. How long the searches take is the bench's
 * (docs/benchmarks.md: The Postgres example), never asserted here: the suite passes on a machine that other programs
 * keep busy.
 */
import { generateFixtures } from "@compute-api/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cheapQuery, costlyQueries } from "../../bench/costly-queries.js";
import type { Principal } from "../../src/authenticate.js";
import { createPostgresServer, type PostgresServer } from "../../src/index.js";
import { searchResources, searchStatement } from "../../src/search-resources.js";
import type { Target, TargetDatabase } from "./targets.js";

/** How the suite runs on a target. */
export interface CostOptions {
  /** Resources generated. */
  count: number;
  /** How long loading the data may take. */
  loadTimeoutMs: number;
  /**
   * Whether statements run at once, each on a connection of its own, and one is cancelled on the server when its
   * signal fires (PostgreSQL); PGlite runs one statement at a time, in process, to its end.
   */
  concurrent: boolean;
  /** The server's log, where a cancelled statement is named (PostgreSQL). */
  serverLog?: () => string;
}

const alice: Principal = { id: "alice", canCreateApiKeys: true, canSearch: true };

/** A node of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan, with the fields read here. */
interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The rows a scan of `relation` read, over its loops: those it returned and those its filter or recheck removed
 * (EXPLAIN gives each per loop, rounded, hence at most one row per loop more than were read). And the scans.
 */
function rowsRead(plan: PlanNode, relation: string): { rows: number; loops: number; scans: number } {
  const scans = nodesOf(plan).filter((node) => node["Relation Name"] === relation);
  const perLoop = (node: PlanNode) =>
    node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
  return {
    rows: scans.reduce((sum, node) => sum + perLoop(node) * node["Actual Loops"], 0),
    loops: scans.reduce((sum, node) => sum + node["Actual Loops"], 0),
    scans: scans.filter((node) => node["Actual Loops"] > 0).length,
  };
}

/** Declares the cost test on the target. */
export function searchCostSuite(target: Target, options: CostOptions): void {
  describe(`search cost on ${target.name}, ${options.count.toLocaleString("en")} generated resources`, () => {
    let database: TargetDatabase;
    let server: PostgresServer;
    beforeAll(async () => {
      database = await target.open();
      server = await createPostgresServer({
        ...database.options,
        fixtures: () => generateFixtures({ count: options.count }),
      });
    }, options.loadTimeoutMs);
    afterAll(async () => {
      await server?.close();
      await database?.close();
    });

    /** The plan of a search as the database ran it. */
    const planOf = async (query: string): Promise<PlanNode> => {
      const { sql, params } = searchStatement(alice, query);
      const [row] = await server.database.query<Record<string, [{ Plan: PlanNode }]>>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      const [explained] = Object.values(row ?? {})[0] ?? [];
      if (!explained) throw new Error(`no plan for ${JSON.stringify(query)}`);
      return explained.Plan;
    };

    it("reads each document at most once for each costliest search, which fills the cap", {
      timeout: 600_000,
    }, async () => {
      const [{ documents } = { documents: 0 }] = await server.database.query<{ documents: number }>(
        "SELECT count(*)::int AS documents FROM search_documents",
      );
      expect(documents).toBeGreaterThanOrEqual(options.count);
      for (const [shape, query] of costlyQueries) {
        // Each is broad: it fills the cap, so that it read and scored every entry it could.
        expect((await searchResources(server.database, alice, query)).results, shape).toHaveLength(100);
        const read = rowsRead(await planOf(query), "search_documents");
        expect(read.scans, `${shape}: scans of search_documents`).toBe(1);
        expect(read.rows, `${shape}: documents read, of ${documents}`).toBeLessThanOrEqual(documents + read.loops);
      }
    });

    it(options.concurrent
      ? "answers a cheap search sent beside the costliest one before it: each has a connection of its own"
      : "answers a cheap search sent beside the costliest one after it, in its turn", {
      timeout: 300_000,
    }, async () => {
      const [, query] = costlyQueries[0] ?? ["", ""];
      const settled: string[] = [];
      const costly = searchResources(server.database, alice, query).then((answer) => {
        settled.push("costly");
        return answer;
      });
      if (options.concurrent) await untilRunning(server);
      const cheap = await searchResources(server.database, alice, cheapQuery);
      settled.push("cheap");
      expect(cheap.results.length).toBeGreaterThan(0);
      expect((await costly).results).toHaveLength(100);
      expect(settled).toEqual(options.concurrent ? ["cheap", "costly"] : ["costly", "cheap"]);
    });

    it.runIf(options.concurrent)("stops a costly search on the server when its caller leaves", async () => {
      const [, query] = costlyQueries[0] ?? ["", ""];
      const caller = new AbortController();
      const search = searchResources(server.database, alice, query, caller.signal);
      await untilRunning(server);
      caller.abort();
      await expect(search).rejects.toMatchObject({ status: 504 });
      // The statement no longer runs on the server, and the server says it cancelled it rather than saw it end.
      await untilRunning(server, false);
      const cancelled =
        /ERROR: {2}canceling statement due to user request\n[^\n]*STATEMENT: {2}\s*SELECT r\.resource_type, r\.resource_name, r\.score, resource_object\(/;
      await expect.poll(() => options.serverLog?.() ?? "", { timeout: 15_000 }).toMatch(cancelled);
    });
  });
}

/**
 * The start of a search's statement (as `searchStatement` makes it for terms), which `pg_stat_activity` shows: it
 * keeps only the first 1 kB of a statement's text, before its `FROM search_documents`.
 */
const searchStatementMark = "r.score, resource_object(";

/** Waits until a search's statement runs on the server (or, with `running` false, until none does). */
async function untilRunning(server: PostgresServer, running = true): Promise<void> {
  const active = `SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE state = 'active' AND strpos(query, $1) > 0 AND pid <> pg_backend_pid()`;
  await expect
    .poll(async () => ((await server.database.query<{ n: number }>(active, [searchStatementMark]))[0]?.n ?? 0) > 0, {
      timeout: 30_000,
      interval: 5,
    })
    .toBe(running);
}
