/**
 * The store's PATCH and its search index: a PATCH changes a cluster's machines and totals, never a value search
 * reads, so it leaves the cluster's search entry as it is — and search still answers what a store built afresh
 * from the changed data answers.
 */
import { searchValues } from "@compute-api/rules";
import { describe, expect, it } from "vitest";
import { Store, type User } from "../../src/store/store.js";
import type { Cluster, ClusterMachine, Fixtures, UpdateClusterMachineRequest } from "../../src/types.js";

const queries = ["train", "type:cluster", "cl-train-01", "alpha", "type:cluster 1", "active", "proj-alpha gpu", "dc"];

const machine = (id: string, fields: Partial<ClusterMachine> = {}): ClusterMachine => ({
  id,
  projectId: "proj-alpha",
  dataCenterId: "dc-fra-1",
  machineTypeId: "gpu-8xh100",
  powerState: "ON",
  state: "ACTIVE",
  ...fields,
});

/** Two clusters of proj-alpha with their machines and volumes, and a cluster of another project. */
const data = (): Fixtures => ({
  users: [{ id: "alice", projectIds: ["proj-alpha"], billingAccountIds: [] }],
  projects: [
    { id: "proj-alpha", billingAccountId: "ba-main" },
    { id: "proj-beta", billingAccountId: "ba-main" },
  ],
  clusters: [
    {
      id: "cl-train-01",
      projectId: "proj-alpha",
      dataCenterId: "dc-fra-1",
      machineTypeId: "gpu-8xh100",
      machineCount: 2,
      state: "ACTIVE",
      createBy: "train@example.com",
      machines: [machine("cm-alpha-01", { priceHr: { value: "1.25" } }), machine("cm-alpha-02")],
    },
    {
      id: "cl-infer-01",
      projectId: "proj-alpha",
      dataCenterId: "dc-ams-3",
      machineTypeId: "cpu-64",
      machineCount: 1,
      state: "CREATING",
      machines: [machine("cm-alpha-03", { volumeIds: ["vol-alpha-data"] })],
    },
    { id: "cl-train-02", projectId: "proj-beta", dataCenterId: "dc-fra-1", machineTypeId: "cpu-16", machineCount: 0 },
  ],
  volumes: [
    { id: "vol-alpha-data", projectId: "proj-alpha", dataCenterId: "dc-fra-1", sizeGib: 100 },
    { id: "vol-alpha-scratch", projectId: "proj-alpha", dataCenterId: "dc-fra-1", sizeGib: 30, state: "ACTIVE" },
  ],
});

/** A store over data it adopts, and alice, who may PATCH the machines of proj-alpha. */
function aliceStore(): { store: Store; alice: User; clusters: Cluster[] } {
  const fixtures = data();
  const store = new Store(fixtures, new Date(), { adopt: true });
  store.addApiKey("alice", "test", "cak_test");
  const alice = store.authenticate("cak_test");
  if (!alice) throw new Error("no user alice");
  return { store, alice, clusters: fixtures.clusters ?? [] };
}

/** Each kind of change a PATCH makes, alone and together. */
const bodies: [string, UpdateClusterMachineRequest][] = [
  ["powerState", { powerState: "POWERING_ON" }],
  ["state", { state: "FAILED" }],
  ["priceHr", { priceHr: { value: "+.5" } }],
  ["volumeIds", { volumeIds: ["vol-alpha-data", "vol-alpha-scratch"] }],
  ["everything", { powerState: "OFF", state: "ACTIVE", priceHr: { value: "7.25" }, volumeIds: [] }],
];

describe("Store.updateClusterMachine and search", () => {
  it.each(bodies)("leaves the cluster's search values as they were, and its entry unrefreshed: %s", (_name, body) => {
    const { store, alice } = aliceStore();
    // The cluster as the store has it now (a changed one is the store's copy).
    const cluster = () => {
      const [found] = store.search(alice, "type:cluster cl-train-01");
      return (found?.resourceType === "cluster" ? found.cluster : undefined) as Cluster;
    };
    const valuesOf = () => searchValues("cluster", "projects/proj-alpha/clusters/cl-train-01", cluster());
    const before = valuesOf();
    const totals = JSON.stringify(cluster().totalMachinePriceHr);
    store.updateClusterMachine(alice, "proj-alpha", "cm-alpha-01", body);
    expect(valuesOf()).toEqual(before);
    expect(store.searchOverlaySize).toBe(0);
    if (body.priceHr) expect(JSON.stringify(cluster().totalMachinePriceHr)).not.toBe(totals);
  });

  it("answers after many PATCHes what it answered before, with the changed objects, as a store built afresh", () => {
    const { store, alice, clusters } = aliceStore();
    const ranked = () => queries.map((q) => store.search(alice, q).map((r) => [r.resourceName, r.score]));
    const before = ranked();
    const machines = clusters.flatMap((c) => (c.projectId === "proj-alpha" ? (c.machines ?? []) : []));
    expect(machines.length).toBeGreaterThan(1);
    // A linear congruential generator: the same changes every run.
    let seed = 5;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let i = 0; i < 2000; i++) {
      const machine = machines[Math.floor(random() * machines.length)];
      const [, body] = bodies[Math.floor(random() * bodies.length)] as [string, UpdateClusterMachineRequest];
      store.updateClusterMachine(alice, "proj-alpha", machine?.id ?? "", body);
    }
    expect(store.searchOverlaySize).toBe(0);
    expect(ranked()).toEqual(before);
    // A store built afresh from the changed data (the snapshot; alice's key in it as SHA-256) answers the same.
    const fresh = new Store(store.snapshot());
    const freshAlice = fresh.authenticate("cak_test") as User;
    for (const query of queries) expect(store.search(alice, query)).toEqual(fresh.search(freshAlice, query));
  });
});
