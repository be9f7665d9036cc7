/** What a PATCH's priceHr does: the price normalized and the totals recomputed, or the violations of priceHr.value. */
import { describe, expect, it } from "vitest";
import { type PriceChange, priceChange } from "../src/price-change.js";
import type { Schemas } from "../src/types.js";

type ClusterMachine = Schemas["ClusterMachine"];

const big = `1${"0".repeat(40)}`;
const machines: ClusterMachine[] = [
  { id: "a", projectId: "p", cpuCores: 4, priceHr: { value: "2.50" } },
  { id: "b", projectId: "p", cpuCores: 2 },
];
const totals = (value: string) => ({
  machineCount: 2,
  totalCpuCores: 6,
  totalMemoryGib: 0,
  totalGpus: 0,
  totalDiskSizeGib: 0,
  totalMachinePriceHr: { value },
  totalPriceHr: { value },
});

describe("priceChange", () => {
  it.each<[string, { given: { machines?: ClusterMachine[]; price: string | undefined }; want: PriceChange }]>([
    [
      "no priceHr: the totals as they are",
      { given: { price: undefined }, want: { price: undefined, totals: totals("2.5"), violations: [] } },
    ],
    [
      "a price: normalized, and in the totals",
      { given: { price: "+.5" }, want: { price: "0.5", totals: totals("3"), violations: [] } },
    ],
    [
      "a price replaces the machine's own",
      {
        given: { machines: machines.map((m) => ({ ...m, priceHr: { value: "1" } })), price: "0" },
        want: { price: "0", totals: totals("1"), violations: [] },
      },
    ],
    [
      "a price longer than 64 characters once normalized",
      {
        given: { price: `1${"0".repeat(64)}` },
        want: {
          price: `1${"0".repeat(64)}`,
          totals: undefined,
          violations: [
            {
              field: "priceHr.value",
              description: "is longer than 64 characters once normalized",
              reason: "maxLength",
            },
          ],
        },
      },
    ],
    [
      "a price that makes the totals too long",
      {
        given: {
          machines: [
            { ...machines[0], id: "a", projectId: "p", priceHr: { value: big } },
            machines[1] as ClusterMachine,
          ],
          price: `0.${"0".repeat(30)}1`,
        },
        want: {
          price: `0.${"0".repeat(30)}1`,
          totals: undefined,
          violations: [
            {
              field: "priceHr.value",
              description:
                "makes the cluster's totals invalid: the sum of the machines' priceHr cannot be written in a Decimal of 64 characters",
              reason: "range",
            },
          ],
        },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const isB = (m: ClusterMachine) => m.id === "b";
    expect(
      priceChange(given.machines ?? machines, isB, given.price === undefined ? undefined : { value: given.price }),
    ).toEqual(want);
  });

  it("changes nothing it is given", () => {
    const before = structuredClone(machines);
    priceChange(machines, (m) => m.id === "b", { value: "9" });
    expect(machines).toEqual(before);
  });
});
