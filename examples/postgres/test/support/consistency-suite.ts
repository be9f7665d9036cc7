/**
 * What concurrency must not break: 100 PATCHes at once of the machines of one cluster leave totals that agree with
 * the machines, and createApiKey with one id at once gives exactly one key.
 */
import { clusterTotals } from "@compute-api/rules";
import type { Schemas } from "@compute-api/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningPostgresServer, startPostgresServer } from "../../src/index.js";
import { keys } from "./operations-suite.js";
import { seeded } from "./queries.js";
import type { Target, TargetDatabase } from "./targets.js";

type Cluster = Schemas["Cluster"];

/** Declares the checks on the target. */
export function consistencySuite(target: Target): void {
  describe(`concurrent requests on ${target.name}`, () => {
    let database: TargetDatabase;
    let server: RunningPostgresServer;
    const send = (user: keyof typeof keys, method: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${keys[user]}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const cluster = async (id: string): Promise<Cluster> => {
      const response = await fetch(`${server.url}/v1/resources/search?query=type:cluster+${id}`, {
        headers: { authorization: `Bearer ${keys.alice}` },
      });
      const { results } = (await response.json()) as { results: { cluster: Cluster }[] };
      const found = results.find((r) => r.cluster.id === id)?.cluster;
      if (!found) throw new Error(`no cluster ${id}`);
      return found;
    };

    beforeAll(async () => {
      database = await target.open();
      server = await startPostgresServer({ ...database.options, port: 0, host: "127.0.0.1", apiKeys: keys });
    });
    afterAll(async () => {
      await server?.close();
      await database?.close();
    });

    it("100 PATCHes at once of one cluster's machines leave totals that agree with them", async () => {
      const next = seeded(3);
      const machines = ["cm-alpha-01", "cm-alpha-02"];
      const sent = new Map<string, Set<string>>(machines.map((m) => [m, new Set()]));
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const machine = machines[i % 2 === 0 ? 0 : Math.floor(next() * machines.length)] as string;
          // Every tenth request fails (a volume of no project) and must change nothing.
          const failing = i % 10 === 9;
          const price = `${Math.floor(next() * 1000)}.${String(Math.floor(next() * 100)).padStart(2, "0")}`;
          if (!failing) sent.get(machine)?.add(price);
          return send("alice", "PATCH", `/v1/projects/proj-alpha/cluster-machines/${machine}`, {
            priceHr: { value: price },
            state: next() < 0.5 ? "ACTIVE" : "FAILED",
            ...(failing ? { volumeIds: ["vol-nope"] } : {}),
          }).then((r) => r.status);
        }),
      );
      expect(answers.filter((s) => s === 200)).toHaveLength(90);
      expect(answers.filter((s) => s === 400)).toHaveLength(10);

      const after = await cluster("cl-train-01");
      expect(after).toMatchObject(clusterTotals(after.machines ?? []));
      for (const machine of after.machines ?? []) {
        expect([...(sent.get(machine.id) ?? [])]).toContain(machine.priceHr?.value);
      }
      // The database's own copy agrees too: the cluster row's totals and its machines' rows.
      const [row] = await server.database.query<{ spec: Cluster; prices: string[] }>(
        `SELECT c.spec, array_agg(m.spec->'priceHr'->>'value' ORDER BY m.position) AS prices
         FROM clusters c JOIN cluster_machines m ON m.project_id = c.project_id AND m.cluster_id = c.id
         WHERE c.project_id = 'proj-alpha' AND c.id = 'cl-train-01' GROUP BY c.spec`,
      );
      expect(row?.spec.totalPriceHr).toEqual(after.totalPriceHr);
      expect(row?.prices).toEqual(after.machines?.map((m) => m.priceHr?.value));
    });

    it("createApiKey with one id from 20 requests at once: one 200, 19 409", async () => {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () =>
          send("bob", "POST", "/v1/api-keys", { apikeyId: "raced-key" }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      const rows = await server.database.query("SELECT 1 FROM api_keys WHERE user_id = 'bob' AND key_id = 'raced-key'");
      expect(rows).toHaveLength(1);
    });
  });
}
