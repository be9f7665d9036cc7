/**
 * A store's state and its control, the part of the store (store.ts) that holds the state rather than answering
 * operations: the state as the store has it (a built state and what the store changed over it, state-view.ts), where
 * `reset()` goes back to, the keys given from outside, and the state replaced whole — `reset()`, `restore(data)`,
 * `load(data)`, at once or built in slices while a server serves (`changeInSlices`) — or read whole, `snapshot()`. A
 * fork shares its parent's reset point and copies nothing to start.
 * Nothing here loads Express or a Node built-in of its own, so that it runs in a browser too.
 */
import { hashApiKey } from "@compute-api/rules";
import type { Fixtures } from "../types.js";
import { type DataSource, made, makerOf, type StateChange } from "./data-source.js";
import { registerKey, StateView } from "./state-view.js";
import { runSteps, runStepsInSlices, type Steps } from "./steps.js";
import { buildingState, type State, type User } from "./store-state.js";

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

/** The state of a store and its control; the store adds the operations. */
export class StateControl {
  /** The state as this store has it: a built state and what the store changed over it. */
  protected view: StateView;
  /**
   * The built state `reset()` went back to last, which forks share (changed only by keys given from outside); kept
   * while a restored state is served. Undefined for a fork that follows its parent's.
   */
  private pristine: State | undefined;
  /** Where `reset()` takes its data; undefined for a fork that follows its parent's. */
  private baseline: (() => Fixtures | Steps<Fixtures>) | undefined;
  private readonly parent: StateControl | undefined;
  private readonly givenKeys: GivenKey[];
  /** The change in slices under way, after which the next one starts: one state is built at a time. */
  private changing: Promise<unknown> = Promise.resolve();

  /**
   * Builds the state from a copy of the fixtures (with `adopt`: from the fixtures themselves, which the caller
   * hands over and never uses again); their keys are kept as SHA-256 only. Given a store: its fork (`fork()`).
   */
  constructor(source: Fixtures | StateControl, now: Date = new Date(), { adopt = false, baseline }: StoreOptions = {}) {
    if (source instanceof StateControl) {
      this.parent = source;
      this.givenKeys = source.givenKeys;
      this.view = new StateView(source.resetPoint());
      return;
    }
    this.parent = undefined;
    this.givenKeys = [];
    this.baseline = baseline ?? (adopt ? makerOf(source) : () => structuredClone(source));
    // The store changes what it keeps (counts, totals, machines): a copy, unless the data is its own to change.
    this.pristine = runSteps(this.building(() => (adopt ? source : structuredClone(source)), now));
    this.view = new StateView(this.pristine);
  }

  /** Back to the data set the store started with (or last `load`ed), with the keys given by `addApiKey`. */
  reset(): void {
    if (this.baseline === undefined) {
      this.view = new StateView((this.parent as StateControl).resetPoint());
      return;
    }
    this.pristine = runSteps(this.building(this.baseline));
    this.view = new StateView(this.pristine);
  }

  /** The built state `reset()` goes back to. */
  private resetPoint(): State {
    return this.pristine ?? (this.parent as StateControl).resetPoint();
  }

  /**
   * The whole state as a data set, in the shape a fixture file has (what `--data` reads), a copy the caller may
   * change: every resource as it is now, and the users with their keys as SHA-256 only (`apiKeys[].sha256`), never
   * in clear text. `restore` of it gives back the same state, and a snapshot of that the same data set.
   */
  snapshot(): Fixtures {
    return this.view.snapshot();
  }

  /**
   * Replaces the whole state with a data set that checkFixtures accepted (a snapshot, another data set), copied;
   * `reset()` still goes back to the data set the store started with. At once: an operation sees the state
   * before or after, never a mix.
   */
  restore(data: Fixtures): void {
    this.view = new StateView(runSteps(this.building(() => structuredClone(data))));
  }

  /**
   * Replaces the whole state with a data set that checkFixtures accepted and makes it the one `reset()` goes back
   * to: the data (copied), or a function that makes a fresh data set at each call (a generated set: `() =>
   * generateFixtures({ count, seed })`), which the store adopts.
   */
  load(source: DataSource): void {
    const baseline = makerOf(source);
    this.pristine = runSteps(this.building(baseline));
    this.view = new StateView(this.pristine);
    this.baseline = baseline;
  }

  /**
   * A `reset`, `restore` or `load` whose new state is built in slices with the event loop free between them
   * (steps.ts): a server answers other requests meanwhile, on the state before. The new state (and for a load, what
   * `reset` goes back to) replaces the old one at the end, at once; a change that throws, or whose `signal` fires
   * (its request's deadline), changes nothing. Changes asked for while one is built wait for it, in turn, so that one
   * state is built at a time. A fork's reset builds nothing: it takes its parent's reset point anew.
   */
  changeInSlices(change: StateChange, signal?: AbortSignal): Promise<void> {
    const run = async () => {
      signal?.throwIfAborted();
      if ("restore" in change) {
        const { restore } = change;
        this.view = new StateView(
          await runStepsInSlices(
            this.building(() => structuredClone(restore)),
            signal,
          ),
        );
        return;
      }
      const baseline = "load" in change ? makerOf(change.load) : this.baseline;
      if (baseline === undefined) return this.reset();
      const state = await runStepsInSlices(this.building(baseline), signal);
      this.pristine = state;
      this.view = new StateView(state);
      this.baseline = baseline;
    };
    const done = this.changing.then(run, run);
    this.changing = done.catch(() => {});
    return done;
  }

  /** Number of searchable resources. */
  get resourceCount(): number {
    return this.view.base.index.size;
  }

  /** The ids of the users, in the data's order. */
  get userIds(): string[] {
    return this.view.base.data.users.map((user) => user.id);
  }

  /** Number of resources this store copied because it changed them (none for a store that changed nothing). */
  get changedResources(): number {
    return this.view.changedResources;
  }

  /** Number of search entries refreshed since the index's last vacuum; a PATCH adds none (tests watch it). */
  get searchOverlaySize(): number {
    return this.view.base.index.overlaySize;
  }

  /** The user of an API key, or undefined for an unknown key. */
  authenticate(apiKey: string): User | undefined {
    return this.view.ownerOf(hashApiKey(apiKey));
  }

  /**
   * Gives a user a key chosen from outside (the `--api-key` flag, tests); false when the user does not exist. The
   * key stays across `reset`, `restore` and `load`, for a user of this id in the new data.
   */
  addApiKey(userId: string, keyId: string, apiKey: string): boolean {
    const given = { userId, keyId, sha256: hashApiKey(apiKey), createTime: new Date().toISOString() };
    if (!this.view.registerGivenKey(userId, keyId, given.sha256, given.createTime)) return false;
    // The reset point too, when the state is another (restored): the forks made from it know the key.
    const pristine = this.resetPoint();
    const user = pristine.users.get(userId);
    if (pristine !== this.view.base && user) registerKey(pristine, user, keyId, given.sha256, given.createTime);
    const at = this.givenKeys.findIndex((k) => k.userId === userId && k.keyId === keyId);
    if (at < 0) this.givenKeys.push(given);
    else this.givenKeys[at] = given;
    return true;
  }

  /**
   * In steps (steps.ts), a state built from the data set a maker makes, which it adopts, with the keys given by
   * `addApiKey` (to the users the data has, unless the data gives them a key of the same id). What throws has
   * changed nothing.
   */
  private *building(make: () => Fixtures | Steps<Fixtures>, now = new Date()): Steps<State> {
    const state = yield* buildingState(yield* made(make), now);
    for (const { userId, keyId, sha256, createTime } of this.givenKeys) {
      const user = state.users.get(userId);
      if (user && !user.keys.has(keyId)) registerKey(state, user, keyId, sha256, createTime);
    }
    return state;
  }

  /**
   * The view an operation of this user runs on: the one the user was authenticated on. A request authenticated before
   * the state was replaced is handled on the state it was authenticated on: it sees the state before the change,
   * never a mix (and what it changes goes with that state).
   */
  protected viewOf(user: User): StateView {
    return StateView.of(user) ?? this.view;
  }
}
