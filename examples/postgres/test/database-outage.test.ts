/**
 * The server when its PostgreSQL misbehaves (a real server of the suite's own, @compute-api/test-support/postgres; skipped
 * with one line without it, except under CI). Under steady searches and PATCHes the database is stopped (fast, then
 * immediate) and started again, and its backends are terminated in a loop: the server keeps running, answers 503
 * with Retry-After meanwhile (never 401, never the database's address), recovers by itself, and every PATCH it
 * answered 200 is in the database. A cluster's row locked by another session: its PATCHes answer 503 at
 * lock_timeout, and searches are answered while they wait. A request whose client leaves, or whose deadline passes,
 * has its statement cancelled on the server.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { clusterTotals } from "@compute-api/rules";
import type { Schemas } from "@compute-api/server";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningPostgresServer, type StartOptions, startPostgresServer } from "../src/index.js";
import { type Answer, startTraffic } from "./support/traffic.js";

const key = "cak_outage-test-key";
const machines = ["cm-alpha-01", "cm-alpha-02"];

describe.skipIf(skipWithoutPostgres())("the server when its PostgreSQL misbehaves", () => {
  let postgres: Postgres;
  let admin: pg.Client;
  const servers: RunningPostgresServer[] = [];
  const start = async (options: StartOptions = {}) => {
    const server = await startPostgresServer({
      databaseUrl: postgres.url,
      port: 0,
      apiKeys: { alice: key },
      ...options,
    });
    servers.push(server);
    return server;
  };
  /** A client of the `postgres` database (never one of the server's), for pg_stat_activity and terminations. */
  const connectAdmin = async () => {
    const client = new pg.Client({ connectionString: postgres.url.replace(/\/test$/, "/postgres") });
    client.on("error", () => {});
    await client.connect();
    return client;
  };

  beforeAll(async () => {
    postgres = await startPostgres();
    admin = await connectAdmin();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await admin?.end().catch(() => {});
    await postgres?.close();
  });

  it("stopped (fast, immediate), started again, its backends terminated in a loop: 503 with Retry-After meanwhile, then 200 again, and every 200 PATCH kept", async () => {
    const server = await start();
    const traffic = startTraffic(server.url, key, 3, machines);
    const readiness: number[] = [];
    const recovered: number[] = [];
    await sleep(500);
    for (const mode of ["fast", "immediate"] as const) {
      await admin.end().catch(() => {});
      await postgres.stop(mode);
      const down = traffic.now();
      await traffic.until(503, down, 20_000);
      readiness.push((await fetch(`${server.url}/readyz`)).status);
      await sleep(700);
      await postgres.start();
      const up = traffic.now();
      recovered.push((await traffic.until(200, up, 20_000)) - up);
      readiness.push((await fetch(`${server.url}/readyz`)).status);
    }
    admin = await connectAdmin();
    const terminating = traffic.now();
    for (let i = 0; i < 30; i++) {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'test' AND pid <> pg_backend_pid()",
      );
      await sleep(50);
    }
    const stopped = traffic.now();
    recovered.push((await traffic.until(200, stopped, 20_000)) - stopped);
    await sleep(1_000);
    const answers = await traffic.stop();

    const statuses = count(answers.map((a) => a.status));
    // Only 200 and 503: no 401 for a key the database could not check, no 500 for a driver error.
    expect(Object.keys(statuses).sort()).toEqual(["200", "503"]);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.every((a) => a.retryAfter === "1")).toBe(true);
    expect(unavailable.filter((a) => a.at > terminating).length).toBeGreaterThan(0);
    for (const a of unavailable) {
      expect(JSON.parse(a.body)).toMatchObject({ code: 503 });
      expect(a.body).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${postgres.port}|terminat|ECONN|postgres`, "i"));
    }
    expect(readiness).toEqual([503, 200, 503, 200]);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    // Each machine holds the price of its last PATCH answered 200, or of a later one whose answer was lost with its
    // connection (a COMMIT may reach the server and its answer not come back); never an earlier one.
    const rows = await server.database.query<{ id: string; price: string }>(
      "SELECT id, spec->'priceHr'->>'value' AS price FROM cluster_machines WHERE project_id = 'proj-alpha' AND id = ANY($1)",
      [machines],
    );
    for (const machine of machines) {
      const sent = answers.filter((a) => a.machine === machine);
      const lastOk = Math.max(...sent.filter((a) => a.status === 200).map((a) => Number(a.price)));
      expect(lastOk).toBeGreaterThan(3);
      const price = Number(rows.find((r) => r.id === machine)?.price);
      expect(price).toBeGreaterThanOrEqual(lastOk);
      expect(price).toBeLessThanOrEqual(Math.max(...sent.map((a) => Number(a.price))));
    }
    const [cluster] = await server.database.query<{ spec: Schemas["Cluster"]; machines: Schemas["ClusterMachine"][] }>(
      `SELECT c.spec, jsonb_agg(m.spec ORDER BY m.position) AS machines FROM clusters c
       JOIN cluster_machines m ON m.project_id = c.project_id AND m.cluster_id = c.id
       WHERE c.project_id = 'proj-alpha' AND c.id = 'cl-train-01' GROUP BY c.spec`,
    );
    expect(cluster?.spec).toMatchObject(clusterTotals(cluster?.machines ?? []));
    console.info(
      `outage traffic: ${JSON.stringify(statuses)}; first 200 after each recovery: ${recovered.map(Math.round).join(", ")} ms`,
    );
  }, 180_000);

  it("a cluster's row locked by another session: its PATCHes answer 503 at lock_timeout, searches are answered while they wait", async () => {
    // The PATCHes wait 10 s on the lock (their statements may run longer): decisively longer than the searches
    // take, however busy the machine.
    const server = await start({ lockTimeoutMs: 10_000, statementTimeoutMs: 60_000 });
    expect(await server.database.query("SHOW lock_timeout")).toEqual([{ lock_timeout: "10s" }]);
    const search = async () => {
      const begun = performance.now();
      const response = await fetch(`${server.url}/v1/resources/search?query=train`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      return performance.now() - begun;
    };
    await search();
    const usual = median(await sequence(5, search));
    const holder = new pg.Client({ connectionString: postgres.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM clusters WHERE project_id = 'proj-alpha' AND id = 'cl-train-01' FOR UPDATE");
      // More PATCHes than a third of the pool, all waiting on the lock at once.
      let settled = 0;
      const patches = Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          patch(server.url, machines[i % 2] as string, "42").finally(() => settled++),
        ),
      );
      await expect.poll(() => waitingOnLocks(admin), { timeout: 20_000 }).toBe(4);
      const during = await sequence(5, search);
      // The searches were answered while the four PATCHes still held their connections, waiting on the lock.
      expect({ settled, waiting: await waitingOnLocks(admin) }).toEqual({ settled: 0, waiting: 4 });
      for (const a of await patches) expect(a).toMatchObject({ status: 503, retryAfter: "1" });
      console.info(`search p50 ${usual.toFixed(1)} ms alone, ${median(during).toFixed(1)} ms behind the held lock`);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    expect((await patch(server.url, "cm-alpha-01", "43")).status).toBe(200);
  }, 90_000);

  it("a request whose client goes away, or whose deadline passes, has its statement cancelled on the server", async () => {
    // The lock is held for the whole test, and only the request's own end may stop its statement: the database's
    // timeouts are a minute away, the handler's deadline 1 s.
    const server = await start({ lockTimeoutMs: 60_000, statementTimeoutMs: 60_000, handlerTimeoutMs: 1_000 });
    const holder = new pg.Client({ connectionString: postgres.url });
    await holder.connect();
    const waiting = () => waitingOnLocks(admin);
    const gone = async (bound: number) => {
      for (const deadline = Date.now() + bound; Date.now() < deadline; await sleep(20))
        if ((await waiting()) === 0) return true;
      return false;
    };
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM clusters WHERE project_id = 'proj-alpha' AND id = 'cl-train-01' FOR UPDATE");

      const controller = new AbortController();
      const left = patch(server.url, "cm-alpha-01", "7", controller.signal).catch(() => "aborted");
      for (const deadline = Date.now() + 20_000; Date.now() < deadline && (await waiting()) === 0; ) await sleep(20);
      expect(await waiting()).toBe(1);
      controller.abort();
      expect(await left).toBe("aborted");
      expect(await gone(20_000)).toBe(true);

      const timedOut = await patch(server.url, "cm-alpha-01", "8");
      // At the handler's deadline (1 s), not at the database's timeouts (a minute, a 503): the answer names it.
      expect(timedOut.status).toBe(504);
      expect(JSON.parse(timedOut.body)).toMatchObject({ message: "the request did not complete within 1000 ms" });
      expect(await gone(20_000)).toBe(true);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    // Neither change was made.
    const [row] = await server.database.query<{ price: string }>(
      "SELECT spec->'priceHr'->>'value' AS price FROM cluster_machines WHERE project_id = 'proj-alpha' AND id = 'cm-alpha-01'",
    );
    expect(["7", "8"]).not.toContain(row?.price);
  }, 90_000);
});

/** A PATCH of a machine's price, as a client sees its answer. */
async function patch(
  url: string,
  machine: string,
  price: string,
  signal?: AbortSignal,
): Promise<Pick<Answer, "status" | "retryAfter" | "body">> {
  const response = await fetch(`${url}/v1/projects/proj-alpha/cluster-machines/${machine}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ priceHr: { value: price } }),
    ...(signal ? { signal } : {}),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text() };
}

/** How many of the `test` database's statements wait on a lock now. */
async function waitingOnLocks(admin: pg.Client): Promise<number> {
  const { rowCount } = await admin.query(
    "SELECT pid FROM pg_stat_activity WHERE datname = 'test' AND state = 'active' AND wait_event_type = 'Lock'",
  );
  return rowCount ?? 0;
}

/** Runs `fn` n times, one after another. */
async function sequence<T>(n: number, fn: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < n; i++) results.push(await fn());
  return results;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function count(values: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
