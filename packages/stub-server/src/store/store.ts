/**
 * The stub's state: users and their API keys, the resources, and the search index over them. The store is the one
 * owner of that state: it holds it, and every change to it is a method here (store-state.ts only builds a state from
 * a data set). Every operation of the spec is a method here; HTTP is the routes' business. A method that fails
 * changes nothing.
 *
 * The state can be replaced whole — `reset()`, `restore(data)`, `load(data)` — and read whole as a data set,
 * `snapshot()`: the state control of the stub's admin API and of its MSW handlers. Nothing here loads Express or a
 * Node built-in of its own, so that it runs in a browser too.
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
import type { ClusterMachine, Fixtures, ResponseBody, SearchResult, UpdateClusterMachineRequest } from "../types.js";
import { type DataSource, made, makerOf, type StateChange } from "./data-source.js";
import { runSteps, runStepsInSlices, type Steps } from "./steps.js";
import { buildingState, type State, stateSnapshot, type User } from "./store-state.js";

export type { User } from "./store-state.js";

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
   * Where `reset()` takes the data set it goes back to: a function that makes a fresh one at each call, at once or
   * in steps, which the store adopts (the command line reads its `--data` file again, or generates its `--generate`
   * set again). Default: a copy of `source` (without `adopt`: `source` itself, copied at each reset, so the caller
   * must not change it; with `adopt`: a copy kept from before the store changed anything).
   */
  baseline?: () => Fixtures | Steps<Fixtures>;
}

/** The in-memory state of the stub, built from fixtures that checkFixtures accepted. */
export class Store {
  private state: State;
  private baseline: () => Fixtures | Steps<Fixtures>;
  /** The change in slices under way, after which the next one starts: one state is built at a time. */
  private changing: Promise<unknown> = Promise.resolve();
  private readonly givenKeys: GivenKey[] = [];
  /**
   * The state each user belongs to. A request authenticated before the state was replaced is handled on the state it
   * was authenticated on: it sees the state before the change, never a mix (and what it changes goes with that state).
   */
  private readonly stateOfUser = new WeakMap<User, State>();

  /**
   * Builds the state from a copy of the fixtures (with `adopt`: from the fixtures themselves, which the caller
   * hands over and never uses again); their keys are kept as SHA-256 only.
   */
  constructor(source: Fixtures, now: Date = new Date(), { adopt = false, baseline }: StoreOptions = {}) {
    this.baseline = baseline ?? (adopt ? makerOf(source) : () => structuredClone(source));
    // The store changes what it keeps (counts, totals, machines): a copy, unless the data is its own to change.
    this.state = runSteps(this.building(() => (adopt ? source : structuredClone(source)), now));
  }

  /** Back to the data set the store started with (or last `load`ed), with the keys given by `addApiKey`. */
  reset(): void {
    this.state = runSteps(this.building(this.baseline));
  }

  /**
   * The whole state as a data set, in the shape a fixture file has (what `--data` reads), a copy the caller may
   * change: every resource as it is now, and the users with their keys as SHA-256 only (`apiKeys[].sha256`), never
   * in clear text. `restore` of it gives back the same state, and a snapshot of that the same data set.
   */
  snapshot(): Fixtures {
    return stateSnapshot(this.state);
  }

  /**
   * Replaces the whole state with a data set that checkFixtures accepted (a snapshot, another data set), copied;
   * `reset()` still goes back to the data set the store started with. At once: an operation sees the state
   * before or after, never a mix.
   */
  restore(data: Fixtures): void {
    this.state = runSteps(this.building(() => structuredClone(data)));
  }

  /**
   * Replaces the whole state with a data set that checkFixtures accepted and makes it the one `reset()` goes back
   * to: the data (copied), or a function that makes a fresh data set at each call (a generated set: `() =>
   * generateFixtures({ count, seed })`), which the store adopts.
   */
  load(source: DataSource): void {
    const baseline = makerOf(source);
    this.state = runSteps(this.building(baseline));
    this.baseline = baseline;
  }

  /**
   * A `reset`, `restore` or `load` whose new state is built in slices with the event loop free between them
   * (steps.ts): a server answers other requests meanwhile, on the state before. The new state (and for a load, what
   * `reset` goes back to) replaces the old one at the end, at once; a change that throws, or whose `signal` fires
   * (its request's deadline), changes nothing. Changes asked for while one is built wait for it, in turn, so that one
   * state is built at a time.
   */
  changeInSlices(change: StateChange, signal?: AbortSignal): Promise<void> {
    const run = async () => {
      signal?.throwIfAborted();
      const baseline = "load" in change ? makerOf(change.load) : this.baseline;
      const { restore } = change as { restore?: Fixtures };
      this.state = await runStepsInSlices(this.building(restore ? () => structuredClone(restore) : baseline), signal);
      this.baseline = baseline;
    };
    const done = this.changing.then(run, run);
    this.changing = done.catch(() => {});
    return done;
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

  /** Whether the data holds a cluster machine of this id in a project of this id, whoever may see it. */
  holdsClusterMachine(projectId: string, id: string): boolean {
    return this.state.clusterMachines.get(projectId)?.has(id) === true;
  }

  /**
   * Gives a user a key chosen from outside (the `--api-key` flag, tests); false when the user does not exist. The
   * key stays across `reset`, `restore` and `load`, for a user of this id in the new data.
   */
  addApiKey(userId: string, keyId: string, apiKey: string): boolean {
    const user = this.state.users.get(userId);
    if (!user) return false;
    const given = { userId, keyId, sha256: hashApiKey(apiKey), createTime: new Date().toISOString() };
    this.registerKey(this.state, user, keyId, given.sha256, given.createTime);
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
    this.registerKey(this.stateOf(user), user, apikeyId, hashApiKey(apiKey), createTime);
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

  /**
   * In steps (steps.ts), a state built from the data set a maker makes, which it adopts, with the keys given by
   * `addApiKey` (to the users the data has, unless the data gives them a key of the same id), its users known to
   * belong to it. What throws has changed nothing.
   */
  private *building(make: () => Fixtures | Steps<Fixtures>, now = new Date()): Steps<State> {
    const state = yield* buildingState(yield* made(make), now);
    for (const { userId, keyId, sha256, createTime } of this.givenKeys) {
      const user = state.users.get(userId);
      if (user && !user.keys.has(keyId)) this.registerKey(state, user, keyId, sha256, createTime);
    }
    for (const user of state.users.values()) this.stateOfUser.set(user, state);
    return state;
  }

  /** The state an operation of this user runs on: the one the user was authenticated on. */
  private stateOf(user: User): State {
    return this.stateOfUser.get(user) ?? this.state;
  }

  /** Registers a user's key in a state, in place of the user's key of the same id. */
  private registerKey(state: State, user: User, keyId: string, sha256: string, createTime: string): void {
    const replaced = user.keys.get(keyId);
    if (replaced) state.keyOwners.delete(replaced.sha256);
    user.keys.set(keyId, { sha256, createTime });
    state.keyOwners.set(sha256, user);
  }
}
