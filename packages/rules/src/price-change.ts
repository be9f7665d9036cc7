/**
 * What a PATCH's `priceHr` does to a cluster machine and its cluster: the price normalized, and the cluster's
 * totals recomputed with it, or the violations of `priceHr.value` when the price is too long or would make a
 * total break the spec. Computed before anything changes, so that a refused PATCH changes nothing.
 * @see openapi/paths/v1_projects_{projectId}_cluster-machines_{id}.yaml
 */
import type { FieldViolation } from "@compute-api/contract";
import { maxDecimalLength, normalizeDecimal } from "@compute-api/decimal";
import { type ClusterTotals, clusterTotals } from "./cluster-totals.js";
import { priceBreaksTotals, priceTooLong } from "./operation-errors.js";
import type { Schemas } from "./types.js";

type ClusterMachine = Schemas["ClusterMachine"];

/** The outcome: the normalized price (when the body sets one) and the new totals, or the violations. */
export interface PriceChange {
  price: string | undefined;
  totals: ClusterTotals | undefined;
  violations: FieldViolation[];
}

/** The price `priceHr` sets on the machine `isChanged` picks among the cluster's `machines`, and the totals it makes. */
export function priceChange(
  machines: readonly ClusterMachine[],
  isChanged: (machine: ClusterMachine) => boolean,
  priceHr: { readonly value: string } | undefined,
): PriceChange {
  const price = priceHr ? normalizeDecimal(priceHr.value) : undefined;
  if (price !== undefined && price.length > maxDecimalLength)
    return { price, totals: undefined, violations: [priceTooLong(maxDecimalLength)] };
  try {
    const priced =
      price === undefined ? machines : machines.map((m) => (isChanged(m) ? { ...m, priceHr: { value: price } } : m));
    return { price, totals: clusterTotals(priced), violations: [] };
  } catch (error) {
    return { price, totals: undefined, violations: [priceBreaksTotals((error as Error).message)] };
  }
}
