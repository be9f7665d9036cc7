/**
 * The stub's state: users and their API keys, the resources, and the search index over them. The store is the one
 * owner of that state: it holds it, and every change to it is a method here or of its state control
 * (state-control.ts: reset, snapshot, restore, load, the keys given from outside); store-state.ts only builds a state
 * from a data set, and state-view.ts keeps what a store changed over a built state, copy on write. Every operation of
 * the spec is a method here; HTTP is the routes' business. A method that fails changes nothing. `fork()` makes a store
 * of its own over the data `reset()` goes back to, at once and copying nothing (a test session's). Nothing here loads
 * Express or a Node built-in of its own, so that it runs in a browser too.
 */

import { type FieldViolation, invalidRequest } from "@compute-api/contract";
import {
  apiKeyExists,
  clusterMachineNotFound,
  createApiKeysDenied,
  hashApiKey,
  newApiKey,
  parseSearchQuery,
  priceChange,
  projectDenied,
  searchDenied,
  volumeNotFound,
} from "@compute-api/rules";
import type { ClusterMachine, ResponseBody, SearchResult, UpdateClusterMachineRequest } from "../types.js";
import { StateControl } from "./state-control.js";
import type { User } from "./store-state.js";

export type { StoreOptions } from "./state-control.js";
export type { User } from "./store-state.js";

/** The in-memory state of the stub, built from fixtures that checkFixtures accepted. */
export class Store extends StateControl {
  /**
   * A store of its own over the data this one's `reset()` goes back to, made at once: it shares that state and
   * copies what it changes (a cluster on its first change), so that neither store sees the other's changes. Its
   * `reset()` goes back to this store's reset point of the moment (unless it `load`s its own); the keys given to this
   * store by `addApiKey` work in it.
   */
  fork(): Store {
    return new Store(this);
  }

  /** Whether the data holds a cluster machine of this id in a project of this id, whoever may see it. */
  holdsClusterMachine(projectId: string, id: string): boolean {
    return this.view.machine(projectId, id) !== undefined;
  }

  /** createApiKey: a new key for the user, with the user's access. */
  createApiKey(user: User, apikeyId: string): ResponseBody<"createApiKey"> {
    if (!user.canCreateApiKeys) throw createApiKeysDenied();
    if (user.keys.has(apikeyId)) throw apiKeyExists(apikeyId);
    const apiKey = newApiKey();
    const createTime = new Date().toISOString();
    this.viewOf(user).registerKey(user, apikeyId, hashApiKey(apiKey), createTime);
    return { id: apikeyId, createTime, key: apiKey };
  }

  /** updateClusterMachine: sets the fields present, keeps the others, and updates the cluster's totals. */
  updateClusterMachine(user: User, projectId: string, id: string, body: UpdateClusterMachineRequest): ClusterMachine {
    if (!user.projectIds.has(projectId)) throw projectDenied(projectId);
    const view = this.viewOf(user);
    const found = view.machine(projectId, id);
    if (!found) throw clusterMachineNotFound(projectId, id);

    // Check everything before changing anything.
    const violations: FieldViolation[] = [];
    (body.volumeIds ?? []).forEach((volumeId, i) => {
      if (!view.base.volumes.get(projectId)?.has(volumeId)) violations.push(volumeNotFound(i, volumeId, projectId));
    });
    const {
      price,
      totals,
      violations: priceViolations,
    } = priceChange(found.cluster.machines ?? [], (m) => m === found.machine, body.priceHr);
    violations.push(...priceViolations);
    if (violations.length > 0) throw invalidRequest(violations);

    // The view's own copy of the cluster, made at its first change.
    const { machine, cluster } = view.machineToChange(projectId, id) as NonNullable<typeof found>;
    if (body.powerState !== undefined) machine.powerState = body.powerState;
    if (body.state !== undefined) machine.state = body.state;
    if (price !== undefined) machine.priceHr = { value: price };
    if (body.volumeIds !== undefined) machine.volumeIds = [...body.volumeIds];
    Object.assign(cluster, totals);
    // The cluster's search values are its top-level string and string-array fields (visitSearchFields); this
    // changes its machines (objects) and totals (numbers and Decimals), none of them: its search entry stays.
    return machine;
  }

  /** searchResources: the best matches among what the user may access. */
  search(user: User, query: string): SearchResult[] {
    if (!user.canSearch) throw searchDenied();
    const { terms, type } = parseSearchQuery(query);
    const view = this.viewOf(user);
    return view.base.index.search({ terms, type, canAccess: (access) => user.access.has(access) }).map(
      ({ entry, score }) =>
        ({
          resourceName: entry.resourceName,
          resourceType: entry.resourceType,
          score,
          [entry.resourceType]: view.read(entry.resource),
        }) as SearchResult,
    );
  }
}
