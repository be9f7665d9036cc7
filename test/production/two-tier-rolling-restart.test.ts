/**
 * A rolling restart of both tiers of a deployment, each behind its own real load balancer: nginx → two gateways →
 * nginx → two compute-postgres → one PostgreSQL server they share. Under steady searches and PATCHes from keep-alive
 * clients, each gateway in turn, then each compute-postgres in turn, gets SIGTERM twice on its process group (as
 * systemd's KillMode=control-group sends it, and then again), exits, and a new process takes its port and is ready
 * before the next. No request may fail (but for the race of a listener's close that no server can avoid: see
 * `failuresBesideListenerRace`), every old process must exit 0 by itself once the balancer has closed its idle
 * connections (none closed by its grace, none cut at its deadline), no
 * PATCH may be applied twice (a trigger records every write of a machine's row, and each PATCH sets a price of its
 * own), and each machine ends with the price of its last acknowledged PATCH.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "@compute-api/test-support";
import { type Nginx, skipWithoutNginx, startNginx } from "@compute-api/test-support/nginx";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aliceKey,
  balancer,
  type CommandName,
  type CommandProcess,
  call,
  exitWithin,
  failuresBesideListenerRace,
  killCommandProcesses,
  logsRequest,
  type Outcome,
  signalGroupTwice,
  startCommandProcess,
  steadyTraffic,
  untilReady,
} from "./support.js";

/**
 * The balancers close a pooled connection after 1 s idle, decisively before a draining server closes it after its
 * grace (as the gateway's README says to set them), however busy the machine: so a server never closes a connection
 * nginx may be sending a request on.
 */
const keepaliveTimeout = "1s";
const shutdownGraceMs = 10_000;
const shutdownTimeoutMs = 30_000;
/** alice's machines, one per writing client, so that each machine's last acknowledged PATCH is well defined. */
const machines = ["cm-alpha-01", "cm-alpha-02", "cm-alpha-03"];
const machinePath = (id: string) => `/v1/projects/proj-alpha/cluster-machines/${id}`;

/** Records every write of a machine's spec, in the transaction that makes it: a PATCH applied twice shows twice. */
const recordWrites = `
  CREATE TABLE test_machine_writes (n bigserial PRIMARY KEY, machine text NOT NULL, price text);
  CREATE FUNCTION test_record_machine_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO test_machine_writes (machine, price) VALUES (NEW.id, NEW.spec->'priceHr'->>'value');
      RETURN NEW;
    END $$;
  CREATE TRIGGER test_record_machine_write AFTER UPDATE OF spec ON cluster_machines
    FOR EACH ROW EXECUTE FUNCTION test_record_machine_write();`;

/** The processes of one tier: the command, its ports, its arguments for a port. */
interface Tier {
  name: CommandName;
  ports: number[];
  args(port: number): string[];
}

/** How one old process ended. */
interface Exit {
  name: string;
  /** Whether it was still draining for the second SIGTERM (a drain may end sooner, its connections busy). */
  runningAtSecond: boolean;
  code: number | string | null;
  cut: boolean;
  /** Whether its grace closed idle connections (it logs those): the balancer had not closed them first. */
  graceClosed: boolean;
  /** The end of what it wrote, for the failure message when it did not exit 0. */
  tail: string;
}

describe.skipIf(skipWithoutNginx() || skipWithoutPostgres())("a rolling restart of two tiers behind nginx", () => {
  let postgres: Postgres;
  let front: Nginx;
  let back: Nginx;
  const gatewayPorts: number[] = [];
  const backendPorts: number[] = [];
  let db: Client | undefined;

  beforeAll(async () => {
    postgres = await startPostgres();
    gatewayPorts.push(await freePort(), await freePort());
    backendPorts.push(await freePort(), await freePort());
    back = await startNginx((port) => balancer(port, backendPorts, keepaliveTimeout));
    front = await startNginx((port) => balancer(port, gatewayPorts, keepaliveTimeout));
  });
  afterAll(async () => {
    await db?.end();
    killCommandProcesses();
    await front?.stop();
    await back?.stop();
    await postgres?.close();
  });

  it("under steady searches and PATCHes, no request fails, every process exits 0 by itself, no PATCH is applied twice", async () => {
    const drain = ["--shutdown-grace", String(shutdownGraceMs), "--shutdown-timeout", String(shutdownTimeoutMs)];
    const gateways: Tier = {
      name: "compute-gateway",
      ports: gatewayPorts,
      args: (port) => ["--upstream", back.url, "--port", String(port), ...drain],
    };
    const backends: Tier = {
      name: "compute-postgres",
      ports: backendPorts,
      // At info, so that each request it served has a line (see failuresBesideListenerRace).
      args: (port) => [
        ...["--port", String(port), "--database-url", postgres.url, "--api-key", aliceKey],
        ...["--log-level", "info", ...drain],
      ],
    };
    const running = new Map<number, CommandProcess>();
    /** Every process each tier ran, old and new, for whether a request reached the tier. */
    const ran = new Map<CommandName, CommandProcess[]>();
    const start = async (tier: Tier, port: number) => {
      const started = await startCommandProcess(tier.name, tier.args(port));
      running.set(port, started);
      ran.set(tier.name, [...(ran.get(tier.name) ?? []), started]);
    };
    // The gateways at once; the backends one after the other, as the first makes the schema and loads the data.
    await Promise.all([
      ...gateways.ports.map((port) => start(gateways, port)),
      (async () => {
        for (const port of backends.ports) await start(backends, port);
      })(),
    ]);
    db = new Client({ connectionString: postgres.url });
    await db.connect();
    await db.query(recordWrites);

    // Three clients PATCH a machine each (a price no other PATCH sets) between searches; three only search.
    const acknowledged = new Map<string, string[]>(machines.map((m) => [m, []]));
    let prices = 0;
    const traffic = steadyTraffic(front.url, 6, async (agent, client, n) => {
      const machine = machines[client];
      if (machine === undefined || n % 2 === 0) return call(agent, front.url, "GET", "tiers");
      const price = String(++prices);
      const outcome = await call(agent, front.url, "PATCH", "tiers", {
        path: machinePath(machine),
        body: { priceHr: { value: price } },
      });
      if (outcome.status === 200) acknowledged.get(machine)?.push(price);
      return outcome;
    });

    const exits: Exit[] = [];
    let outcomes: Outcome[];
    try {
      await sleep(500);
      for (const tier of [gateways, backends])
        for (const port of tier.ports) {
          const old = running.get(port) as CommandProcess;
          const runningAtSecond = await signalGroupTwice(old, "SIGTERM", 50);
          const code = await exitWithin(old, shutdownTimeoutMs + 5000);
          exits.push({
            name: `${tier.name} :${port}`,
            runningAtSecond,
            code,
            cut: /request cut/.test(old.output()),
            graceClosed: /shutdown grace over/.test(old.output()),
            tail: code === 0 && !/request cut|shutdown grace over/.test(old.output()) ? "" : old.output().slice(-3000),
          });
          await start(tier, port);
          await untilReady(`http://127.0.0.1:${port}`);
          await sleep(300);
        }
    } finally {
      outcomes = await traffic.stop();
    }

    const errors = [front, back].flatMap((nginx) =>
      nginx
        .errorLog()
        .split("\n")
        .filter((l) => /\[error\]/.test(l) && !/Connection refused/.test(l)),
    );
    const reached = (tier: CommandName) => (id: string) =>
      (ran.get(tier) ?? []).some((command) => logsRequest(command.output(), id));
    const beside = () =>
      failuresBesideListenerRace(outcomes, [
        { errorLog: front.errorLog(), logged: reached("compute-gateway") },
        { errorLog: back.errorLog(), logged: reached("compute-postgres") },
      ]);
    // The processes still running write their request lines in batches: wait for them (up to 15 s, for a hang).
    for (const deadline = Date.now() + 15_000; beside().unlogged.length > 0 && Date.now() < deadline; ) await sleep(50);
    const { failures, setAside, unlogged } = beside();
    expect(failures, errors.slice(0, 5).join("\n")).toEqual({});
    expect(setAside.length, "PATCHes reset in a closing listener's queue").toBeLessThanOrEqual(2);
    expect(unlogged, "PATCHes answered 200 that a tier has no line of").toEqual([]);
    expect(outcomes.filter((o) => o.method === "PATCH").length).toBeGreaterThan(100);
    expect(outcomes.length).toBeGreaterThan(300);

    // Every old process exited 0 by itself having cut nothing, once its busy connections had answered and the
    // balancer had closed its idle ones: none by its grace, none at its deadline.
    expect(exits).toHaveLength(4);
    for (const exit of exits)
      expect(exit, `${exit.name}\n${exit.tail}`).toMatchObject({ code: 0, cut: false, graceClosed: false });

    // Each acknowledged PATCH was applied exactly once, and nothing else was written.
    const { rows: writes } = await db.query<{ machine: string; price: string }>(
      "SELECT machine, price FROM test_machine_writes ORDER BY n",
    );
    const pairs = (list: { machine: string; price: string }[]) => list.map((w) => `${w.machine} ${w.price}`).sort();
    const sent = [...acknowledged].flatMap(([machine, list]) => list.map((price) => ({ machine, price })));
    const counts = new Map<string, number>();
    for (const pair of pairs(writes)) counts.set(pair, (counts.get(pair) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    expect(pairs(writes)).toEqual(pairs(sent));

    // Each machine holds its last acknowledged price, in the database and in what a search through both tiers shows.
    const last = Object.fromEntries([...acknowledged].map(([machine, list]) => [machine, list.at(-1)]));
    const { rows } = await db.query<{ id: string; price: string }>(
      "SELECT id, spec->'priceHr'->>'value' AS price FROM cluster_machines WHERE id = ANY($1::text[])",
      [machines],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.price]))).toEqual(last);
    const search = await fetch(`${front.url}/v1/resources/search?query=type:cluster`, {
      headers: { authorization: `Bearer ${aliceKey}` },
    });
    const { results } = (await search.json()) as {
      results: { cluster?: { machines?: { id: string; priceHr?: { value: string } }[] } }[];
    };
    const shown = results.flatMap((r) => r.cluster?.machines ?? []).filter((m) => machines.includes(m.id));
    expect(Object.fromEntries(shown.map((m) => [m.id, m.priceHr?.value]))).toEqual(last);

    for (const server of running.values()) server.child.kill("SIGTERM");
    expect(await Promise.all([...running.values()].map((server) => server.exited))).toEqual([0, 0, 0, 0]);
  }, 360_000);
});
