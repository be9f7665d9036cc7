/** Abort signals combined, for the cancellation of a tool call that comes from more than one place. */

/**
 * A signal aborted when any of `signals` is, with its reason. Not AbortSignal.any, whose sources Node 20 holds
 * weakly: a timeout signal that nothing else holds could be collected before it fires.
 */
export function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (given.length === 1) return given[0]!;
  const controller = new AbortController();
  for (const signal of given) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
