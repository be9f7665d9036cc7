/**
 * The facts of the spec that the runner needs beyond what its schemas give a generator, in one place: the search's
 * terms (the query schema's `x-search-terms`, from `@compute-api/spec/facts`), and how many volumes a PATCH may name
 * (`UpdateClusterMachineRequest.volumeIds`' `maxItems`, read from the document the run is given).
 * Every module of the runner takes them from here, so that the source of each can change in one line.
 */
import { type OpenApiDocument, resolvePointer } from "@compute-api/contract";

import { searchTerms } from "@compute-api/spec/facts";

export { searchTerms };
/** The most terms a query may hold besides its `type:` term. */
export const maxSearchTerms = searchTerms.maxTerms;

/** How many volumes a PATCH of a machine may name: the `maxItems` of the request's `volumeIds`. */
export function maxVolumeIds(spec: OpenApiDocument): number {
  const volumeIds = resolvePointer(spec, "#/components/schemas/UpdateClusterMachineRequest/properties/volumeIds") as
    | { maxItems?: unknown }
    | undefined;
  const max = volumeIds?.maxItems;
  if (typeof max !== "number") throw new Error("the spec gives UpdateClusterMachineRequest.volumeIds no maxItems");
  return max;
}
