/**
 * Where a resource is: the collections of a project with the resource type each holds, and a resource's
 * `resourceName` — `billingAccounts/{id}`, `projects/{id}`, or `projects/{projectId}/{collection}/{id}`.
 * @see openapi/paths/v1_resources_search.yaml
 */
import type { ResourceType } from "./search-query.js";

/** The collections of a project, each with the type of its resources (`virtualMachines` → `virtualMachine`). */
export const projectCollections = {
  clusters: "cluster",
  disks: "disk",
  images: "image",
  machines: "machine",
  networks: "network",
  virtualMachines: "virtualMachine",
  volumes: "volume",
} as const satisfies Record<string, ResourceType>;

/** A collection of a project, such as `clusters`. */
export type ProjectCollection = keyof typeof projectCollections;

/** The collections, in the table's order. */
export const projectCollectionNames = Object.keys(projectCollections) as readonly ProjectCollection[];

const collectionOfType: ReadonlyMap<string, ProjectCollection> = new Map(
  projectCollectionNames.map((collection) => [projectCollections[collection], collection]),
);

// The names are joined with Array#join, which makes one flat string: a template literal makes a tree of
// concatenations that its first reader flattens into a copy, keeping the tree besides (the stub keeps a million).

/** `billingAccounts/{id}`. */
export const billingAccountName = (id: string): string => ["billingAccounts/", id].join("");

/** `projects/{id}`. */
export const projectName = (id: string): string => ["projects/", id].join("");

/** `projects/{projectId}/{collection}/{id}`. */
export const projectResourceName = (projectId: string, collection: ProjectCollection, id: string): string =>
  ["projects/", projectId, "/", collection, "/", id].join("");

/**
 * The resourceName of a resource of a type, from its `id` (and `projectId`, for a resource of a project); undefined
 * for a type search does not know.
 */
export function resourceNameOf(
  resourceType: string,
  resource: { readonly id: string; readonly projectId?: string | undefined },
): string | undefined {
  if (resourceType === "billingAccount") return billingAccountName(resource.id);
  if (resourceType === "project") return projectName(resource.id);
  const collection = collectionOfType.get(resourceType);
  return collection === undefined ? undefined : projectResourceName(resource.projectId ?? "", collection, resource.id);
}
