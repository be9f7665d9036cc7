import { describe, expect, it } from "vitest";
import { type AnsweredCluster, clusterTotalsProblem, clusterVerdicts } from "../src/cluster-rules.js";

const machines = [
  { id: "m1", projectId: "p", cpuCores: 8, memoryGib: 32, gpus: 1, diskSizeGib: 100, priceHr: { value: "1.25" } },
  { id: "m2", projectId: "p", cpuCores: 4, priceHr: { value: "+.75" } },
  { id: "m3", projectId: "p" },
];
const right = {
  id: "cl",
  machines,
  machineCount: 3,
  totalCpuCores: 12,
  totalMemoryGib: 32,
  totalGpus: 1,
  totalDiskSizeGib: 100,
  totalMachinePriceHr: { value: "2.0" },
  totalPriceHr: { value: "9" },
};

describe("clusterTotalsProblem", () => {
  it.each<[string, { given: AnsweredCluster; want: string | undefined }]>([
    [
      "the machines' totals, the price compared as a number; totalPriceHr left alone",
      { given: right, want: undefined },
    ],
    ["totals a backend leaves out are not judged", { given: { id: "cl", machines }, want: undefined }],
    [
      "a cluster that lists no machines is not judged",
      { given: { ...right, machines: undefined, machineCount: 7 }, want: undefined },
    ],
    [
      "a count and a price that do not follow the machines",
      {
        given: { ...right, machineCount: 2, totalMachinePriceHr: { value: "3.5" } },
        want: 'cluster cl lists 3 machines but carries machineCount 2, not 3, totalMachinePriceHr "3.5", not 2',
      },
    ],
    [
      "a machine whose price is not a Decimal: the schema check's",
      { given: { ...right, machines: [{ id: "m", priceHr: { value: "x" } }] }, want: undefined },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(clusterTotalsProblem(given)).toBe(want);
  });
});

describe("clusterVerdicts", () => {
  const search = (clusters: unknown[]) => {
    const json = { results: clusters.map((cluster) => ({ resourceType: "cluster", cluster })) };
    return { status: 200, headers: {}, text: JSON.stringify(json), json };
  };
  it("judges every cluster that lists its machines, and says nothing of a search without one", () => {
    expect(clusterVerdicts(search([right]))).toEqual({ cluster_totals: null });
    expect(clusterVerdicts(search([right, { ...right, id: "c2", totalGpus: 0 }]))).toEqual({
      cluster_totals: "cluster c2 lists 3 machines but carries totalGpus 0, not 1",
    });
    expect(clusterVerdicts(search([{ id: "c3" }]))).toEqual({});
  });
});
