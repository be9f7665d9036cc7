/** A cluster's totals, derived from its machines: exact sums, and a RangeError for a total the spec cannot hold. */
import { describe, expect, it } from "vitest";
import { type ClusterTotals, clusterTotals } from "../src/cluster-totals.js";
import type { Schemas } from "../src/types.js";

type ClusterMachine = Schemas["ClusterMachine"];

const machine = (id: string, fields: Partial<ClusterMachine> = {}): ClusterMachine => ({
  id,
  projectId: "p",
  ...fields,
});
const price = (value: string) => ({ value });
const zero: ClusterTotals = {
  machineCount: 0,
  totalCpuCores: 0,
  totalMemoryGib: 0,
  totalGpus: 0,
  totalDiskSizeGib: 0,
  totalMachinePriceHr: price("0"),
  totalPriceHr: price("0"),
};

describe("clusterTotals", () => {
  it.each<[string, { given: ClusterMachine[]; want: ClusterTotals }]>([
    ["no machines", { given: [], want: zero }],
    [
      "machines without numbers or prices count 0",
      { given: [machine("a"), machine("b")], want: { ...zero, machineCount: 2 } },
    ],
    [
      "sums every field (the price normalized)",
      {
        given: [
          machine("a", { cpuCores: 8, memoryGib: 64, gpus: 1, diskSizeGib: 500, priceHr: price("2.50") }),
          machine("b", { cpuCores: 4, memoryGib: 16, gpus: 0, diskSizeGib: 100 }),
        ],
        want: {
          machineCount: 2,
          totalCpuCores: 12,
          totalMemoryGib: 80,
          totalGpus: 1,
          totalDiskSizeGib: 600,
          totalMachinePriceHr: price("2.5"),
          totalPriceHr: price("2.5"),
        },
      },
    ],
    [
      "adds prices exactly, never through floating point",
      {
        given: [machine("a", { priceHr: price("0.1") }), machine("b", { priceHr: price("0.2") })],
        want: { ...zero, machineCount: 2, totalMachinePriceHr: price("0.3"), totalPriceHr: price("0.3") },
      },
    ],
    [
      "a sum of int32 maximum fits",
      {
        given: [machine("a", { gpus: 2 ** 31 - 2 }), machine("b", { gpus: 1 })],
        want: { ...zero, machineCount: 2, totalGpus: 2 ** 31 - 1 },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(clusterTotals(given)).toEqual(want);
  });

  it.each<[string, { given: ClusterMachine[]; want: string }]>([
    [
      "a sum over the int32 maximum",
      {
        given: [machine("a", { cpuCores: 2 ** 31 - 1 }), machine("b", { cpuCores: 1 })],
        want: "the sum of the machines' cpuCores is over the int32 maximum",
      },
    ],
    [
      "a price sum longer than a Decimal",
      {
        given: [
          machine("a", { priceHr: price(`1${"0".repeat(40)}`) }),
          machine("b", { priceHr: price(`0.${"0".repeat(30)}1`) }),
        ],
        want: "the sum of the machines' priceHr cannot be written in a Decimal of 64 characters",
      },
    ],
  ])("throws a RangeError for %s", (_name, { given, want }) => {
    expect(() => clusterTotals(given)).toThrow(new RangeError(want));
  });
});
