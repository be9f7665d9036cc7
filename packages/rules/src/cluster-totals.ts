/**
 * The totals of a cluster, derived from its machines. `totalMachinePriceHr` is the exact sum of the machines'
 * `priceHr` (machines without a price count as 0); `totalPriceHr`, the price of the whole cluster, equals it:
 * the spec charges nothing for a cluster beyond its machines.
 * @see openapi/components/schemas/Cluster.yaml
 */
import { sumDecimals } from "@compute-api/decimal";
import type { Schemas } from "./types.js";

type Cluster = Schemas["Cluster"];
type ClusterMachine = Schemas["ClusterMachine"];

/** The fields of a cluster the stub computes. */
export type ClusterTotals = Required<
  Pick<
    Cluster,
    | "machineCount"
    | "totalCpuCores"
    | "totalMemoryGib"
    | "totalGpus"
    | "totalDiskSizeGib"
    | "totalMachinePriceHr"
    | "totalPriceHr"
  >
>;

const int32Max = 2 ** 31 - 1;

/** Computes the totals; throws a RangeError naming the field when one does not fit the spec (int32, Decimal). */
export function clusterTotals(machines: readonly ClusterMachine[]): ClusterTotals {
  const sum = (field: "cpuCores" | "memoryGib" | "gpus" | "diskSizeGib"): number => {
    const total = machines.reduce((acc, m) => acc + (m[field] ?? 0), 0);
    if (total > int32Max) throw new RangeError(`the sum of the machines' ${field} is over the int32 maximum`);
    return total;
  };
  const price = sumDecimals(machines.flatMap((m) => (m.priceHr ? [m.priceHr.value] : [])));
  if (price === undefined)
    throw new RangeError("the sum of the machines' priceHr cannot be written in a Decimal of 64 characters");
  return {
    machineCount: machines.length,
    totalCpuCores: sum("cpuCores"),
    totalMemoryGib: sum("memoryGib"),
    totalGpus: sum("gpus"),
    totalDiskSizeGib: sum("diskSizeGib"),
    totalMachinePriceHr: { value: price },
    totalPriceHr: { value: price },
  };
}
