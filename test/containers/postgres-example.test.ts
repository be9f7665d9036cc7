/**
 * The Postgres example's image against a real PostgreSQL server (test-support/postgres starts one): it migrates the
 * empty database, loads the built-in data and serves it; what it changes is in PostgreSQL, and a second container on
 * the same database serves it. It runs as uid 1000 on a read-only root filesystem and `podman stop` ends it with 0.
 */
import { buildImages, type Container, skipWithoutPodman, startContainer } from "@compute-api/test-support/podman";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBound, httpClient, tagOf } from "./support.js";

const key = "cak_containers-postgres-key";
const auth = { authorization: `Bearer ${key}` };

describe.skipIf(skipWithoutPodman() || skipWithoutPostgres())("the Postgres example's image on PostgreSQL", () => {
  let image: string;
  let postgres: Postgres | undefined;
  const started: Container[] = [];
  /** The first test's client: closed before the stop, so that no idle connection of it holds the drain. */
  const client = httpClient();

  /** A container of the example on the suite's database; migrating and loading it may take a while. */
  async function example(): Promise<Container> {
    const container = await startContainer(image, {
      env: { COMPUTE_POSTGRES_DATABASE_URL: postgres?.url ?? "", LOG_LEVEL: "warn" },
      args: ["--api-key", key],
      readyTimeoutMs: 60_000,
    });
    started.push(container);
    return container;
  }

  beforeAll(async () => {
    [image, postgres] = await Promise.all([
      buildImages().then((images) => tagOf(images, "postgres-example")),
      startPostgres(),
    ]);
  }, buildBound);
  afterAll(async () => {
    await client.close();
    for (const container of started) await container.remove();
    await postgres?.close();
  }, 180_000);

  it("migrates the empty database, serves the built-in data, and keeps what it changes in PostgreSQL", async () => {
    const first = await example();
    const search = await client.send(`${first.url}/v1/resources/search?query=train%20type:cluster`, { headers: auth });
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ results: [{ resourceName: "projects/proj-alpha/clusters/cl-train-01" }] });
    const patch = await client.send(`${first.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
      method: "PATCH",
      headers: auth,
      body: { priceHr: { value: "+.5" } },
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ priceHr: { value: "0.5" } });

    const db = new Client({ connectionString: postgres?.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ price: string }>(
        "SELECT spec->'priceHr'->>'value' AS price FROM cluster_machines WHERE project_id = 'proj-alpha' AND id = 'cm-alpha-01'",
      );
      expect(rows).toEqual([{ price: "0.5" }]);
      const migrations = await db.query("SELECT version FROM schema_migrations");
      expect(migrations.rowCount).toBeGreaterThanOrEqual(5);
    } finally {
      await db.end();
    }

    // A second container on the same database (as a second replica would be) serves the change.
    const second = await example();
    const again = await client.send(`${second.url}/v1/resources/search?query=cl-train-01%20type:cluster`, {
      headers: auth,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      results: [
        {
          cluster: {
            machines: expect.arrayContaining([
              expect.objectContaining({ id: "cm-alpha-01", priceHr: { value: "0.5" } }),
            ]),
          },
        },
      ],
    });
  }, 450_000);

  it("runs as uid 1000 on a read-only root filesystem, and podman stop ends it with 0, not killed", async () => {
    const container = started[0] ?? (await example());
    const { stdout } = await container.exec(["node", "-e", "console.log(process.getuid())"]);
    expect(stdout.trim()).toBe("1000");
    const write = await container.exec(["node", "-e", "require('node:fs').writeFileSync('/app/x', '')"]);
    expect(write.stderr).toContain("EROFS");
    await client.close();
    const { exitCode, ms } = await container.stop(10);
    // 0: it drained and exited by itself; podman's kill after 10 s would make it 137.
    expect(exitCode).toBe(0);
    process.stdout.write(`compute-postgres container: podman stop → exit 0 in ${Math.round(ms)} ms\n`);
  }, 180_000);
});
