/**
 * A project's `resourceCount`: the resources of its collections (clusters, disks, images, machines, networks,
 * virtual machines and volumes) in it; the project itself and its billing account are not counted.
 * @see openapi/components/schemas/Project.yaml
 */
import { type ProjectCollection, projectCollectionNames } from "./resource-names.js";

/** The resources of each collection, each naming its project (the stub's fixture format). */
export type ProjectResources = { readonly [C in ProjectCollection]?: readonly { readonly projectId: string }[] };

/** The resourceCount of every project that holds a resource; a project absent from the map counts 0. */
export function projectResourceCounts(resources: ProjectResources): Map<string, number> {
  const counts = new Map<string, number>();
  for (const collection of projectCollectionNames)
    for (const r of resources[collection] ?? []) counts.set(r.projectId, (counts.get(r.projectId) ?? 0) + 1);
  return counts;
}
