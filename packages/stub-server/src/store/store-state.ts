/**
 * The stub's state as one whole: who a request acts for (`User`), the state built whole from a data set
 * (`buildingState`: the users and their keys as SHA-256 only, the projects' counts, the clusters' totals, the machines
 * and volumes by project, and the search index over the resources), and read back as a data set (`stateSnapshot`).
 * Building and reading are all this module does: the store (store.ts) is the one owner that holds a state, changes
 * it (copy on write, state-view.ts) and replaces it whole. Nothing here loads Express or a Node built-in of its own, so that it runs in a browser
 * too.
 */

import {
  billingAccountName,
  clusterTotals,
  hashApiKey,
  projectName,
  projectResourceCounts,
  projectResourceName,
} from "@compute-api/rules";
import {
  type Cluster,
  type ClusterMachine,
  type Fixtures,
  type ProjectCollection,
  projectCollections,
} from "../types.js";
import type { SearchResource } from "./search-columns.js";
import { SearchIndex } from "./search-index.js";
import { type Steps, stepItems } from "./steps.js";

/** Who a request acts for. */
export interface User {
  readonly id: string;
  readonly projectIds: ReadonlySet<string>;
  /** `p:<projectId>` and `b:<billingAccountId>` of everything the user may see (the search index's access keys). */
  readonly access: ReadonlySet<string>;
  readonly canCreateApiKeys: boolean;
  readonly canSearch: boolean;
  /** The user's keys by id, each as its SHA-256 only. */
  readonly keys: Map<string, { sha256: string; createTime: string }>;
}

/** A project's entry of a map by project, made when missing. */
function inProject<T>(byProject: Map<string, T>, projectId: string, make: () => T): T {
  let found = byProject.get(projectId);
  if (found === undefined) {
    found = make();
    byProject.set(projectId, found);
  }
  return found;
}

/**
 * The searchable resources of the fixtures, made one at a time as the index reads them, so that no wrapper
 * outlives its reading; the projects' resourceCount is set before.
 */
function* searchResources(fixtures: Fixtures): Generator<SearchResource> {
  for (const b of fixtures.billingAccounts ?? []) {
    yield {
      resourceType: "billingAccount",
      resourceName: billingAccountName(b.id),
      access: `b:${b.id}`,
      resource: b,
    };
  }
  // One access key per project, shared by its resources.
  const projectAccess = new Map<string, string>();
  const accessOf = (projectId: string): string => {
    let access = projectAccess.get(projectId);
    if (access === undefined) {
      access = `p:${projectId}`;
      projectAccess.set(projectId, access);
    }
    return access;
  };
  for (const collection of Object.keys(projectCollections) as ProjectCollection[]) {
    for (const r of fixtures[collection] ?? []) {
      yield {
        resourceType: projectCollections[collection],
        resourceName: projectResourceName(r.projectId, collection, r.id),
        access: accessOf(r.projectId),
        resource: r,
      };
    }
  }
  for (const p of fixtures.projects ?? []) {
    yield { resourceType: "project", resourceName: projectName(p.id), access: accessOf(p.id), resource: p };
  }
}

/**
 * One whole state, built at once from a data set and replaced whole, never changed by halves. `data` is the data
 * set it was built from (the index holds the same resource objects); once built, the operations change none of it:
 * a store's view (state-view.ts) keeps copies of what it changed, so that any number of views share one state. Its
 * users hold no key: their keys are in `users`.
 */
export interface State {
  readonly data: Fixtures;
  readonly users: Map<string, User>;
  readonly keyOwners: Map<string, User>;
  // By project, then id: a key joined of the two would be a string more per machine and volume.
  readonly clusterMachines: Map<string, Map<string, { machine: ClusterMachine; cluster: Cluster }>>;
  readonly volumes: Map<string, Set<string>>;
  readonly index: SearchIndex;
}

/**
 * Builds a state from a data set that checkFixtures accepted, which it keeps and changes; in steps (steps.ts), with
 * a yield every `stepItems` clusters and while it indexes.
 */
export function* buildingState(fixtures: Fixtures, now: Date): Steps<State> {
  const state: State = {
    data: fixtures,
    users: new Map(),
    keyOwners: new Map(),
    clusterMachines: new Map(),
    volumes: new Map(),
    // Set below, once the counts and totals are in the data.
    index: undefined as unknown as SearchIndex,
  };
  for (const u of fixtures.users) {
    const user: User = {
      id: u.id,
      projectIds: new Set(u.projectIds),
      access: new Set([...u.projectIds.map((p) => `p:${p}`), ...u.billingAccountIds.map((b) => `b:${b}`)]),
      canCreateApiKeys: u.canCreateApiKeys ?? true,
      canSearch: u.canSearch ?? true,
      keys: new Map(),
    };
    state.users.set(user.id, user);
    // checkFixtures accepted the data: no user has two keys of one id, no two keys are the same.
    for (const k of u.apiKeys ?? []) {
      const sha256 = k.sha256 ?? hashApiKey(k.key ?? "");
      user.keys.set(k.id, { sha256, createTime: k.createTime ?? now.toISOString() });
      state.keyOwners.set(sha256, user);
    }
    // The keys live in `users`, as SHA-256 only: no key in clear text stays in memory.
    delete u.apiKeys;
  }

  const counts = projectResourceCounts(fixtures);
  let expected = (fixtures.billingAccounts?.length ?? 0) + (fixtures.projects?.length ?? 0);
  for (const collection of Object.keys(projectCollections) as ProjectCollection[])
    expected += fixtures[collection]?.length ?? 0;
  for (const p of fixtures.projects ?? []) p.resourceCount = counts.get(p.id) ?? 0;
  yield;
  for (const [i, cluster] of (fixtures.clusters ?? []).entries()) {
    if (i % stepItems === stepItems - 1) yield;
    cluster.machines ??= [];
    Object.assign(cluster, clusterTotals(cluster.machines));
    for (const machine of cluster.machines)
      inProject(state.clusterMachines, machine.projectId, () => new Map()).set(machine.id, { machine, cluster });
  }
  for (const v of fixtures.volumes ?? []) inProject(state.volumes, v.projectId, () => new Set()).add(v.id);
  yield;
  return Object.assign(state, { index: yield* SearchIndex.building(searchResources(fixtures), {}, expected) });
}

/**
 * A state as a data set, in the shape a fixture file has, a copy: every resource as it is now, and the users with
 * their keys as SHA-256 only (`apiKeys[].sha256`).
 */
export function stateSnapshot({ data, users }: Pick<State, "data" | "users">): Fixtures {
  return structuredClone({
    ...data,
    users: data.users.map((u) => {
      const keys = [...(users.get(u.id)?.keys ?? [])].map(([id, { sha256, createTime }]) => ({
        id,
        sha256,
        createTime,
      }));
      return keys.length > 0 ? { ...u, apiKeys: keys } : { ...u };
    }),
  });
}
