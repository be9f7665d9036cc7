/**
 * The types of the stub: the spec's resources and the shape of a data set (from @compute-api/fixtures), and the
 * spec's request and response types the store works with.
 * @see openapi/components/schemas/
 */
import type { components } from "@compute-api/spec/types";

export {
  type Cluster,
  type ClusterMachine,
  type Fixtures,
  type ProjectCollection,
  projectCollections,
  type ResourceType,
} from "@compute-api/fixtures/data";

/** A search result: one resource, its type and score. */
export type SearchResult = components["schemas"]["SearchResult"];
/** The body of updateClusterMachine. */
export type UpdateClusterMachineRequest = components["schemas"]["UpdateClusterMachineRequest"];

/** The JSON body of an operation's success response (`undefined` for a 204). */
export type { ResponseBody } from "@compute-api/server";
