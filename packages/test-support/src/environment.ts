/**
 * The process's environment kept and put back, for suites that set variables by hand. The object stays the same:
 * a suite that assigned `process.env = { ...saved }` left vitest's `vi.stubEnv` holding the old one, so in one worker
 * (`--no-isolate`, tried on CI's other Node lines) a later file kept another file's stubbed variables (HOST, PORT, …)
 * and its commands failed to start.
 */

/** The environment as it is now, and the function that puts it back in place. */
export function keepEnvironment(): () => void {
  const saved = { ...process.env };
  return () => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  };
}
