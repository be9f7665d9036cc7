/**
 * The facts of the spec that the runner needs beyond what its schemas give a generator, in one place: the search's
 * limit of terms besides its `type:` term (stated in the search's description, kept by `@compute-api/rules`), and
 * how many volumes a PATCH may name (`UpdateClusterMachineRequest.volumeIds`' `maxItems`, read from the document).
 * Every module of the runner takes them from here, so that the source of each can change in one line.
 */
import { type OpenApiDocument, resolvePointer } from "@compute-api/contract";

export { maxSearchTerms } from "@compute-api/rules";

/** How many volumes a PATCH of a machine may name: the `maxItems` of the request's `volumeIds`. */
export function maxVolumeIds(spec: OpenApiDocument): number {
  const volumeIds = resolvePointer(spec, "#/components/schemas/UpdateClusterMachineRequest/properties/volumeIds") as
    | { maxItems?: unknown }
    | undefined;
  const max = volumeIds?.maxItems;
  if (typeof max !== "number") throw new Error("the spec gives UpdateClusterMachineRequest.volumeIds no maxItems");
  return max;
}
