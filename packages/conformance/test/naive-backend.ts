/**
 * A backend written from the server kit's README that keeps every rule the schema states and breaks those the
 * descriptions state, each as such a backend would: it stores `priceHr` as sent, accepts volumes that do not
 * exist, answers a PATCH with only the fields it set, keeps a cluster's totals from when it was loaded, searches
 * by type alone (every result scores 100, whatever the terms, any number of them), names clusters `…/cluster/…`,
 * and creates keys it neither remembers nor refuses twice. With `staleSearch`, search shows the data as it was at
 * start. The kit validates every request and response, so every answer is schema-valid.
 */
import {
  createComputeServer,
  type Handlers,
  type Listening,
  listen,
  notFound,
  type Schemas,
} from "@compute-api/server";
import { everyOperation } from "@compute-api/test-support";

type Machine = Schemas["ClusterMachine"];
type Result = Schemas["SearchResult"];

/** The one key the backend knows. */
export const naiveKey = "cak_naive-backend-key";

function data() {
  const machine = (id: string, priceHr: string, volumeIds: string[]): Machine => ({
    id,
    projectId: "proj-naive",
    cpuCores: 8,
    memoryGib: 32,
    gpus: 1,
    diskSizeGib: 100,
    powerState: "ON",
    state: "ACTIVE",
    priceHr: { value: priceHr },
    volumeIds,
  });
  const machines = [machine("cm-naive-1", "1.5", ["vol-naive-data"]), machine("cm-naive-2", "2", [])];
  const cluster: Schemas["Cluster"] = {
    id: "cl-naive",
    projectId: "proj-naive",
    dataCenterId: "dc-1",
    machineTypeId: "mt-1",
    machines,
    machineCount: 2,
    totalCpuCores: 16,
    totalMemoryGib: 64,
    totalGpus: 2,
    totalDiskSizeGib: 200,
    totalMachinePriceHr: { value: "3.5" },
  };
  const results: Result[] = [
    {
      resourceType: "billingAccount",
      resourceName: "billingAccounts/ba-naive",
      score: 0,
      billingAccount: { id: "ba-naive" },
    },
    ...["proj-naive", "proj-other"].map(
      (id): Result => ({
        resourceType: "project",
        resourceName: `projects/${id}`,
        score: 0,
        project: { id, billingAccountId: "ba-naive" },
      }),
    ),
    { resourceType: "cluster", resourceName: "projects/proj-naive/cluster/cl-naive", score: 0, cluster },
    ...[
      ["proj-naive", "vol-naive-data"],
      ["proj-other", "vol-other-data"],
    ].map(
      ([projectId = "", id = ""]): Result => ({
        resourceType: "volume",
        resourceName: `projects/${projectId}/volumes/${id}`,
        score: 0,
        volume: { id, projectId, dataCenterId: "dc-1", sizeGib: 10 },
      }),
    ),
  ];
  return { machines, results };
}

/** Starts the backend on an ephemeral 127.0.0.1 port. */
export async function startNaiveBackend(options: { staleSearch?: boolean } = {}): Promise<Listening> {
  const { machines, results } = data();
  const shown = options.staleSearch ? (structuredClone(results) as Result[]) : results;
  const server = await createComputeServer<{ user: string }>({
    authenticate: (token) => (token === naiveKey ? { user: "naive" } : undefined),
    // The spec's other operations answer 501: the tests of this backend run the three.
    handlers: everyOperation<Handlers<{ user: string }>>({
      searchResources: ({ query }) => {
        const type = /(?:^|\s)type:(\S+)/i.exec(query.query)?.[1]?.toLowerCase();
        const found = shown.filter((r) => type === undefined || r.resourceType.toLowerCase() === type);
        return {
          results: found.map((r) => ({ ...r, score: 100 })).sort((a, b) => (a.resourceName < b.resourceName ? -1 : 1)),
        };
      },
      updateClusterMachine: ({ path, body }) => {
        const machine = machines.find((m) => m.id === path.id && m.projectId === path.projectId);
        if (!machine) throw notFound(`cluster machine '${path.id}' not found in project '${path.projectId}'`);
        Object.assign(machine, body);
        return { id: machine.id, projectId: machine.projectId, ...body };
      },
      createApiKey: ({ body }) => ({
        id: body.apikeyId,
        createTime: new Date().toISOString(),
        key: `cak_${Date.now()}`,
      }),
    }),
  });
  return listen(server.app, { port: 0, host: "127.0.0.1" });
}
