/**
 * Work done in steps, so that building a large state need not hold the event loop: a generator that yields
 * between steps and returns its result. The same steps run at once (`runSteps`: the store's constructor, the MSW
 * handlers) or in slices with the event loop free between them (`runStepsInSlices`: the admin API's state changes,
 * so that the stub answers other requests while it builds). Nothing here loads a Node built-in: the store runs in a
 * browser too.
 */

/** Steps that end with a `T`: each `yield` is a point where the work may pause. */
export type Steps<T> = Generator<void, T, void>;

/** How many items a loop of the build handles between two of its yields. */
export const stepItems = 1024;

/** Runs steps to their end at once. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs steps in slices of about `sliceMs` of work each, with a timer of 0 ms between slices (the event loop serves
 * what came in meanwhile); resolves with their result, or rejects with what they threw, or with `signal`'s reason
 * once it fired (checked before each slice: the result of steps whose signal fired is never returned).
 */
export async function runStepsInSlices<T>(steps: Steps<T>, signal?: AbortSignal, sliceMs = 10): Promise<T> {
  for (;;) {
    signal?.throwIfAborted();
    const until = performance.now() + sliceMs;
    let next = steps.next();
    while (!next.done && performance.now() < until) next = steps.next();
    if (next.done) return next.value;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
