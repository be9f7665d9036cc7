/**
 * A real PostgreSQL server (@compute-api/test-support/postgres): its own cluster on a free port, many clients, stopped and
 * started again, a clean close.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isRunning } from "@compute-api/test-support";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Connects a client to `url`; the caller ends it. */
async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

/** The real user id `pid` runs as, from /proc. */
function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/** Processes whose command line names `text`, from /proc. */
function processesNaming(text: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isRunning);
}

describe.skipIf(skipWithoutPostgres())("PostgreSQL from the system", () => {
  let postgres: Postgres;

  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(async () => {
    await postgres?.close();
  });

  it("answers a query at its URL, in the empty database it made, with the settings it was given", async () => {
    expect(postgres.url).toBe(`postgres://postgres@127.0.0.1:${postgres.port}/${postgres.database}`);
    const client = await connect(postgres.url);
    try {
      const { rows } = await client.query<Record<string, string>>(
        `SELECT current_database() AS database, current_user AS "user", version() AS version,
                current_setting('server_encoding') AS encoding, current_setting('lc_collate') AS collate,
                current_setting('listen_addresses') AS listen, current_setting('fsync') AS fsync,
                (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)::text AS tables`,
      );
      expect(rows[0]).toMatchObject({
        database: postgres.database,
        user: "postgres",
        encoding: "UTF8",
        collate: "C",
        listen: "127.0.0.1",
        fsync: "off",
        tables: "0",
      });
      expect(rows[0]?.version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
  });

  it("runs as the postgres system user when the tests run as root, else as the tests' own user", () => {
    const [postmaster] = postgres.pids();
    expect(postmaster).toBeDefined();
    const uid = uidOf(postmaster as number);
    if (process.getuid?.() === 0) expect(uid).not.toBe(0);
    else expect(uid).toBe(process.getuid?.());
  });

  it("serves 20 concurrent connections", async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => connect(postgres.url)));
    try {
      const answers = await Promise.all(
        clients.map((client) =>
          client.query<{ pid: number; connected: string }>(
            `SELECT pg_backend_pid() AS pid, pg_sleep(0.2)::text,
                    (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database())::text AS connected`,
          ),
        ),
      );
      expect(new Set(answers.map((a) => a.rows[0]?.pid)).size).toBe(20);
      expect(Math.max(...answers.map((a) => Number(a.rows[0]?.connected)))).toBeGreaterThanOrEqual(20);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it("has the pg_trgm extension (Debian's package ships PostgreSQL's contrib modules)", async () => {
    const client = await connect(postgres.url);
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_trgm");
      const { rows } = await client.query<{ similar: boolean }>("SELECT 'cluster' % 'clustr' AS similar");
      expect(rows[0]?.similar).toBe(true);
    } finally {
      await client.end();
    }
  });

  it("stop() (fast, then immediate) and start() again: the same port and data, every process of a stopped server gone", async () => {
    const client = await connect(postgres.url);
    await client.query("CREATE TABLE survives (id int)");
    await client.query("INSERT INTO survives VALUES (1)");
    await client.end();
    for (const mode of ["fast", "immediate"] as const) {
      const pids = postgres.pids();
      await postgres.stop(mode);
      expect(pids.filter(isRunning)).toEqual([]);
      expect(postgres.pids()).toEqual([]);
      await expect(connect(postgres.url)).rejects.toThrow();
      await postgres.start();
      const again = await connect(postgres.url);
      expect((await again.query("SELECT id FROM survives")).rows).toEqual([{ id: 1 }]);
      await again.end();
    }
    expect(postgres.log()).toMatch(/database system was interrupted|automatic recovery|not properly shut down/);
  });

  it("close() cuts off its clients, ends every one of its processes and removes its directory", async () => {
    const client = await connect(postgres.url);
    client.on("error", () => undefined);
    const pids = postgres.pids();
    // The postmaster, its background processes and the backend of the client above.
    expect(pids.length).toBeGreaterThan(3);
    expect(processesNaming(postgres.dir).length).toBeGreaterThan(0);
    await postgres.close();
    expect(pids.filter(isRunning)).toEqual([]);
    expect(processesNaming(postgres.dir)).toEqual([]);
    expect(existsSync(postgres.dir)).toBe(false);
    expect(postgres.pids()).toEqual([]);
    await expect(client.query("SELECT 1")).rejects.toThrow();
    await postgres.close();
  });
});
