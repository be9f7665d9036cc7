/**
 * The stub's state: users and their API keys, the resources, and the search index over them. Every operation
 * of the spec is a method here; HTTP is the routes' business. A method that fails changes nothing.
 *
 * The state can be replaced whole — `reset()`, `restore(data)`, `load(data)` — and read whole as a data set,
 * `snapshot()`: the state control of the stub's admin API and of its MSW handlers. Nothing here loads Express or a
 * Node built-in of its own, so that it runs in a browser too.
 */

import { type FieldViolation, invalidRequest } from "@compute-api/contract";
import {
  apiKeyExists,
  billingAccountName,
  clusterMachineNotFound,
  clusterTotals,
  createApiKeysDenied,
  hashApiKey,
  newApiKey,
  parseSearchQuery,
  priceChange,
  projectDenied,
  projectName,
  projectResourceCounts,
  projectResourceName,
  searchDenied,
  volumeNotFound,
} from "@compute-api/server/rules";
import {
  type Cluster,
  type ClusterMachine,
  type Fixtures,
  type ProjectCollection,
  projectCollections,
  type ResponseBody,
  type SearchResult,
  type UpdateClusterMachineRequest,
} from "../types.js";
import type { SearchResource } from "./search-columns.js";
import { SearchIndex } from "./search-index.js";

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
 * set it was built from, and stays its truth: the operations change its objects in place (the index holds the same
 * resource objects), so that `snapshot()` reads it back. Its users hold no key: their keys are in `users`.
 */
interface State {
  readonly data: Fixtures;
  readonly users: Map<string, User>;
  readonly keyOwners: Map<string, User>;
  // By project, then id: a key joined of the two would be a string more per machine and volume.
  readonly clusterMachines: Map<string, Map<string, { machine: ClusterMachine; cluster: Cluster }>>;
  readonly volumes: Map<string, Set<string>>;
  readonly index: SearchIndex;
}

/**
 * The state each user belongs to. A request authenticated before the state was replaced is handled on the state it
 * was authenticated on: it sees the state before the change, never a mix (and what it changes goes with that state).
 */
const stateOfUser = new WeakMap<User, State>();

/** A key registered in a state. */
function registerKey(state: State, user: User, keyId: string, sha256: string, createTime: string): void {
  const replaced = user.keys.get(keyId);
  if (replaced) state.keyOwners.delete(replaced.sha256);
  user.keys.set(keyId, { sha256, createTime });
  state.keyOwners.set(sha256, user);
}

/** Builds a state from a data set that checkFixtures accepted, which it keeps and changes. */
function buildState(fixtures: Fixtures, now: Date): State {
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
    stateOfUser.set(user, state);
    for (const k of u.apiKeys ?? []) {
      registerKey(state, user, k.id, k.sha256 ?? hashApiKey(k.key ?? ""), k.createTime ?? now.toISOString());
    }
    // The keys live in `users`, as SHA-256 only: no key in clear text stays in memory.
    delete u.apiKeys;
  }

  const counts = projectResourceCounts(fixtures);
  let expected = (fixtures.billingAccounts?.length ?? 0) + (fixtures.projects?.length ?? 0);
  for (const collection of Object.keys(projectCollections) as ProjectCollection[])
    expected += fixtures[collection]?.length ?? 0;
  for (const p of fixtures.projects ?? []) p.resourceCount = counts.get(p.id) ?? 0;
  for (const cluster of fixtures.clusters ?? []) {
    cluster.machines ??= [];
    Object.assign(cluster, clusterTotals(cluster.machines));
    for (const machine of cluster.machines)
      inProject(state.clusterMachines, machine.projectId, () => new Map()).set(machine.id, { machine, cluster });
  }
  for (const v of fixtures.volumes ?? []) inProject(state.volumes, v.projectId, () => new Set()).add(v.id);
  return Object.assign(state, { index: new SearchIndex(searchResources(fixtures), {}, expected) });
}

/** A key given from outside (`addApiKey`), kept across every replacement of the state. */
interface GivenKey {
  userId: string;
  keyId: string;
  sha256: string;
  createTime: string;
}

/** Options of a store. */
export interface StoreOptions {
  /**
   * The data set is the store's to keep and change (made or read for it alone, never used again by the caller):
   * it is not copied. Default false: the store works on a copy.
   */
  adopt?: boolean;
  /**
   * Where `reset()` takes the data set it goes back to: a function that makes a fresh one at each call, which the
   * store adopts (the command line reads its `--data` file again, or generates its `--generate` set again). Default:
   * a copy of `source` (without `adopt`: `source` itself, copied at each reset, so the caller must not change it;
   * with `adopt`: a copy kept from before the store changed anything).
   */
  baseline?: () => Fixtures;
}

/** The in-memory state of the stub, built from fixtures that checkFixtures accepted. */
export class Store {
  private state: State;
  private baseline: () => Fixtures;
  private readonly givenKeys: GivenKey[] = [];

  /**
   * Builds the state from a copy of the fixtures (with `adopt`: from the fixtures themselves, which the caller
   * hands over and never uses again); their keys are kept as SHA-256 only.
   */
  constructor(source: Fixtures, now: Date = new Date(), { adopt = false, baseline }: StoreOptions = {}) {
    if (baseline) this.baseline = baseline;
    else if (adopt) {
      const kept = structuredClone(source);
      this.baseline = () => structuredClone(kept);
    } else this.baseline = () => structuredClone(source);
    // The store changes what it keeps (counts, totals, machines): a copy, unless the data is its own to change.
    this.state = buildState(adopt ? source : structuredClone(source), now);
  }

  /** Back to the data set the store started with (or last `load`ed), with the keys given by `addApiKey`. */
  reset(): void {
    this.replace(this.baseline());
  }

  /**
   * The whole state as a data set, in the shape a fixture file has (what `--data` reads), a copy the caller may
   * change: every resource as it is now, and the users with their keys as SHA-256 only (`apiKeys[].sha256`), never
   * in clear text. `restore` of it gives back the same state, and a snapshot of that the same data set.
   */
  snapshot(): Fixtures {
    const { data, users } = this.state;
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

  /**
   * Replaces the whole state with a data set that checkFixtures accepted (a snapshot, another data set), copied;
   * `reset()` still goes back to the data set the store started with. At once: an operation sees the state
   * before or after, never a mix.
   */
  restore(data: Fixtures): void {
    this.replace(structuredClone(data));
  }

  /**
   * Replaces the whole state with a data set that checkFixtures accepted and makes it the one `reset()` goes back
   * to: the data (copied), or a function that makes a fresh data set at each call (a generated set: `() =>
   * generateFixtures({ count, seed })`), which the store adopts.
   */
  load(data: Fixtures | (() => Fixtures)): void {
    let baseline: () => Fixtures;
    if (typeof data === "function") baseline = data;
    else {
      const kept = structuredClone(data);
      baseline = () => structuredClone(kept);
    }
    this.replace(baseline());
    this.baseline = baseline;
  }

  /**
   * Builds a state from a data set it adopts, with the keys given by `addApiKey` (to the users the data has, unless
   * the data gives them a key of the same id), then swaps it in at once. A data set that cannot be built throws
   * before anything changed.
   */
  private replace(data: Fixtures): void {
    const state = buildState(data, new Date());
    for (const { userId, keyId, sha256, createTime } of this.givenKeys) {
      const user = state.users.get(userId);
      if (user && !user.keys.has(keyId)) registerKey(state, user, keyId, sha256, createTime);
    }
    this.state = state;
  }

  /** The state an operation of this user runs on: the one the user was authenticated on. */
  private stateOf(user: User): State {
    return stateOfUser.get(user) ?? this.state;
  }

  /** Number of searchable resources. */
  get resourceCount(): number {
    return this.state.index.size;
  }

  /** Number of search entries refreshed since the index's last vacuum; a PATCH adds none (tests watch it). */
  get searchOverlaySize(): number {
    return this.state.index.overlaySize;
  }

  /** The user of an API key, or undefined for an unknown key. */
  authenticate(apiKey: string): User | undefined {
    return this.state.keyOwners.get(hashApiKey(apiKey));
  }

  /**
   * Gives a user a key chosen from outside (the `--api-key` flag, tests); false when the user does not exist. The
   * key stays across `reset`, `restore` and `load`, for a user of this id in the new data.
   */
  addApiKey(userId: string, keyId: string, apiKey: string): boolean {
    const user = this.state.users.get(userId);
    if (!user) return false;
    const given = { userId, keyId, sha256: hashApiKey(apiKey), createTime: new Date().toISOString() };
    registerKey(this.state, user, keyId, given.sha256, given.createTime);
    const at = this.givenKeys.findIndex((k) => k.userId === userId && k.keyId === keyId);
    if (at < 0) this.givenKeys.push(given);
    else this.givenKeys[at] = given;
    return true;
  }

  /** createApiKey: a new key for the user, with the user's access. */
  createApiKey(user: User, apikeyId: string): ResponseBody<"createApiKey"> {
    if (!user.canCreateApiKeys) throw createApiKeysDenied();
    if (user.keys.has(apikeyId)) throw apiKeyExists(apikeyId);
    const apiKey = newApiKey();
    const createTime = new Date().toISOString();
    registerKey(this.stateOf(user), user, apikeyId, hashApiKey(apiKey), createTime);
    return { id: apikeyId, createTime, key: apiKey };
  }

  /** updateClusterMachine: sets the fields present, keeps the others, and updates the cluster's totals. */
  updateClusterMachine(user: User, projectId: string, id: string, body: UpdateClusterMachineRequest): ClusterMachine {
    if (!user.projectIds.has(projectId)) throw projectDenied(projectId);
    const state = this.stateOf(user);
    const found = state.clusterMachines.get(projectId)?.get(id);
    if (!found) throw clusterMachineNotFound(projectId, id);
    const { machine, cluster } = found;

    // Check everything before changing anything.
    const violations: FieldViolation[] = [];
    (body.volumeIds ?? []).forEach((volumeId, i) => {
      if (!state.volumes.get(projectId)?.has(volumeId)) violations.push(volumeNotFound(i, volumeId, projectId));
    });
    const {
      price,
      totals,
      violations: priceViolations,
    } = priceChange(cluster.machines ?? [], (m) => m === machine, body.priceHr);
    violations.push(...priceViolations);
    if (violations.length > 0) throw invalidRequest(violations);

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
    return this.stateOf(user)
      .index.search({ terms, type, canAccess: (access) => user.access.has(access) })
      .map(
        ({ entry, score }) =>
          ({
            resourceName: entry.resourceName,
            resourceType: entry.resourceType,
            score,
            [entry.resourceType]: entry.resource,
          }) as SearchResult,
      );
  }
}
