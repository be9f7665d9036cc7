/**
 * Where a state's data set comes from: a data set, or a function that makes one each time it is called — at once
 * (`--data`'s file read again) or in steps (a generated set, so that the admin API builds it while the stub serves).
 * What `load` takes, and what `reset` goes back to. Nothing here loads a Node built-in.
 */
import type { Fixtures } from "../types.js";
import type { Steps } from "./steps.js";

/** A data set, or what makes a fresh one at each call, at once or in steps. */
export type DataSource = Fixtures | (() => Fixtures | Steps<Fixtures>);

/** A change of the whole state, as the admin API asks for it: the store's `reset()`, `restore(data)` or `load(source)`. */
export type StateChange = { reset: true } | { restore: Fixtures } | { load: DataSource };

/** What makes a fresh data set at each call: a function as it is, a data set as copies of a copy kept now. */
export function makerOf(source: DataSource): () => Fixtures | Steps<Fixtures> {
  if (typeof source === "function") return source;
  const kept = structuredClone(source);
  return () => structuredClone(kept);
}

/** The data set a maker makes, taking its steps if it makes it in steps. */
export function* made(make: () => Fixtures | Steps<Fixtures>): Steps<Fixtures> {
  const result = make();
  return isSteps(result) ? yield* result : result;
}

/** Whether a maker's result is steps (a generator) rather than a data set, which has no `next`. */
function isSteps(value: Fixtures | Steps<Fixtures>): value is Steps<Fixtures> {
  return typeof (value as { next?: unknown }).next === "function";
}
