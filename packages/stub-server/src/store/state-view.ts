/**
 * A store's view of a state, copy on write: the built state (store-state.ts), which any number of views share and
 * none changes, and what this view changed over it — the clusters it changed (each copied whole on its first change,
 * machines and totals), its users (each a copy made on first use, with its own keys) and the keys it added or
 * replaced. A new view over a state of any size copies nothing, so that a stub holds one state per test session at
 * the cost of what each session changes. The search index is the shared state's: no change here touches a search
 * value (the stub updates machines and totals, never a cluster's strings), and a result is read through the view.
 * Nothing here loads Express or a Node built-in of its own, so that it runs in a browser too.
 */
import type { Cluster, ClusterMachine, Fixtures } from "../types.js";
import { type State, stateSnapshot, type User } from "./store-state.js";

/** The view each user object belongs to: a view's users are its own copies, so an operation finds its view. */
const viewOfUser = new WeakMap<User, StateView>();

/** A cluster machine and its cluster, as a view has them. */
export interface FoundMachine {
  machine: ClusterMachine;
  cluster: Cluster;
}

/** A view of a built state and what it changed over it. */
export class StateView {
  /** The base's clusters this view changed, each with its copy. */
  private readonly clusters = new Map<object, Cluster>();
  /** The view's users by id: copies of the base's, each with keys of its own, made on first use. */
  private readonly users = new Map<string, User>();
  /** The keys this view added (SHA-256 → user id) and those of the base it replaced (→ undefined). */
  private readonly keys = new Map<string, string | undefined>();

  constructor(readonly base: State) {}

  /** The view a user (a view's copy) belongs to. */
  static of(user: User): StateView | undefined {
    return viewOfUser.get(user);
  }

  /** The view's user of an id, its copy made on first use; undefined when the state has no such user. */
  user(id: string): User | undefined {
    let user = this.users.get(id);
    if (user === undefined) {
      const base = this.base.users.get(id);
      if (base === undefined) return undefined;
      user = { ...base, keys: new Map(base.keys) };
      this.users.set(id, user);
      viewOfUser.set(user, this);
    }
    return user;
  }

  /** The user a key's SHA-256 belongs to in this view. */
  ownerOf(sha256: string): User | undefined {
    const id = this.keys.has(sha256) ? this.keys.get(sha256) : this.base.keyOwners.get(sha256)?.id;
    return id === undefined ? undefined : this.user(id);
  }

  /** Registers a key of one of the view's users, in place of the user's key of the same id. */
  registerKey(user: User, keyId: string, sha256: string, createTime: string): void {
    const replaced = user.keys.get(keyId);
    if (replaced) this.keys.set(replaced.sha256, undefined);
    user.keys.set(keyId, { sha256, createTime });
    this.keys.set(sha256, user.id);
  }

  /**
   * Registers a key given from outside (`addApiKey`) in the shared state itself, so that every view over it knows
   * the key, and in this view's copy of the user if it made one; false without such a user.
   */
  registerGivenKey(userId: string, keyId: string, sha256: string, createTime: string): boolean {
    const user = this.base.users.get(userId);
    if (!user) return false;
    registerKey(this.base, user, keyId, sha256, createTime);
    this.users.get(userId)?.keys.set(keyId, { sha256, createTime });
    return true;
  }

  /** A resource of the base as the view has it: its copy when the view changed it. */
  read<T extends object>(resource: T): T {
    return this.clusters.size === 0 ? resource : ((this.clusters.get(resource) as T | undefined) ?? resource);
  }

  /** A cluster machine and its cluster as the view has them, to read; undefined when there is none. */
  machine(projectId: string, id: string): FoundMachine | undefined {
    const found = this.base.clusterMachines.get(projectId)?.get(id);
    if (!found) return undefined;
    const cluster = this.clusters.get(found.cluster);
    return cluster ? { machine: sameMachine(found, cluster), cluster } : found;
  }

  /** A cluster machine and its cluster to change: the view's copy of the cluster, made on its first change. */
  machineToChange(projectId: string, id: string): FoundMachine | undefined {
    const found = this.base.clusterMachines.get(projectId)?.get(id);
    if (!found) return undefined;
    let cluster = this.clusters.get(found.cluster);
    if (cluster === undefined) {
      cluster = structuredClone(found.cluster);
      this.clusters.set(found.cluster, cluster);
    }
    return { machine: sameMachine(found, cluster), cluster };
  }

  /** How many resources of the base the view copied (changed). */
  get changedResources(): number {
    return this.clusters.size;
  }

  /** The view's state as a data set, as `stateSnapshot` writes it: its changed clusters and its users' keys. */
  snapshot(): Fixtures {
    const { data, users } = this.base;
    const clusters = data.clusters?.map((cluster) => this.read(cluster));
    return stateSnapshot({
      data: clusters ? { ...data, clusters } : data,
      users: new Map([...users].map(([id, user]) => [id, this.users.get(id) ?? user])),
    });
  }
}

/** The machine of a cluster's copy at the place the base's machine has in the base's cluster. */
function sameMachine(found: FoundMachine, copy: Cluster): ClusterMachine {
  const at = found.cluster.machines?.indexOf(found.machine) ?? -1;
  return copy.machines?.[at] as ClusterMachine;
}

/** Registers a user's key in a built state, in place of the user's key of the same id. */
export function registerKey(state: State, user: User, keyId: string, sha256: string, createTime: string): void {
  const replaced = user.keys.get(keyId);
  if (replaced) state.keyOwners.delete(replaced.sha256);
  user.keys.set(keyId, { sha256, createTime });
  state.keyOwners.set(sha256, user);
}
