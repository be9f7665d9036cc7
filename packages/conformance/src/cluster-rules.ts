/**
 * cluster_totals: a cluster that lists its machines carries the totals of those machines — `machineCount` their
 * number, `totalCpuCores`, `totalMemoryGib`, `totalGpus` and `totalDiskSizeGib` their sums, `totalMachinePriceHr`
 * the exact sum of their prices (compared as numbers, not as text). Computed by the server kit's `clusterTotals`.
 * `totalPriceHr`, "the price of the whole cluster", is not held to the sum: the spec does not say a cluster costs
 * nothing beyond its machines.
 * @see openapi/components/schemas/Cluster.yaml
 */
import { compareDecimals, isDecimal } from "@compute-api/decimal";
import { clusterTotals } from "@compute-api/rules";
import type { Verdicts } from "./checks.js";
import type { Answer } from "./http.js";

type Machines = Parameters<typeof clusterTotals>[0];
/** A cluster as a backend answers it: fields a backend leaves out are not judged. */
export type AnsweredCluster = Record<string, unknown> & { id?: unknown; machines?: unknown };

const counts = ["machineCount", "totalCpuCores", "totalMemoryGib", "totalGpus", "totalDiskSizeGib"] as const;

/** What is wrong with a cluster's totals, or undefined when they are its machines' (or it lists no machines). */
export function clusterTotalsProblem(cluster: AnsweredCluster): string | undefined {
  if (!Array.isArray(cluster.machines)) return undefined;
  const machines = cluster.machines as Machines;
  // A price that is not a Decimal is the schema check's to report; the sum would mean nothing.
  if (machines.some((m) => m.priceHr !== undefined && !isDecimal(String(m.priceHr?.value)))) return undefined;
  let totals: ReturnType<typeof clusterTotals>;
  try {
    totals = clusterTotals(machines);
  } catch (error) {
    return `cluster ${String(cluster.id)}: ${(error as Error).message}, so no totals can be right`;
  }
  const wrong: string[] = [];
  for (const field of counts)
    if (cluster[field] !== undefined && cluster[field] !== totals[field])
      wrong.push(`${field} ${JSON.stringify(cluster[field])}, not ${totals[field]}`);
  const price = (cluster.totalMachinePriceHr as { value?: unknown } | undefined)?.value;
  if (
    typeof price === "string" &&
    (!isDecimal(price) || compareDecimals(price, totals.totalMachinePriceHr.value) !== 0)
  )
    wrong.push(`totalMachinePriceHr ${JSON.stringify(price)}, not ${totals.totalMachinePriceHr.value}`);
  return wrong.length === 0
    ? undefined
    : `cluster ${String(cluster.id)} lists ${machines.length} machines but carries ${wrong.join(", ")}`;
}

/** cluster_totals on a search's answer: every cluster result that lists its machines. */
export function clusterVerdicts(answer: Answer): Verdicts {
  const results = (answer.json as { results?: { cluster?: AnsweredCluster }[] } | undefined)?.results;
  if (answer.status !== 200 || !Array.isArray(results)) return {};
  const clusters = results.flatMap((r) => (r?.cluster && Array.isArray(r.cluster.machines) ? [r.cluster] : []));
  if (clusters.length === 0) return {};
  const problems = clusters.flatMap((c) => clusterTotalsProblem(c) ?? []);
  return { cluster_totals: problems.length === 0 ? null : problems.slice(0, 2).join("; ") };
}
