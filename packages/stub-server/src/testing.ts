/**
 * `@compute-api/stub-server/testing`: the stub in other people's test suites — `startStub()`, a stub in the
 * test's own process on an ephemeral 127.0.0.1 port with a key and its admin API as functions, and `connectStub()`,
 * the same functions for a stub that runs elsewhere (a container) — and the stub's parts that other packages' tests
 * hold their own code to: the store (the search the Postgres example must answer alike) and the `Prefer` scanner
 * (the hostile-header suite).
 */
import { newApiKey } from "@compute-api/rules";
import { connectStub, type StubHandle } from "./connect-stub.js";
import { type ServerOptions, startServer } from "./server.js";

export * from "./connect-stub.js";
export { maxPreferLength, parsePrefer } from "./faults.js";
export { Store, type User } from "./store/store.js";

/** Options of `startStub`: the stub's (`fixtures`, `faults`, `apiKeys`, …); it listens on 127.0.0.1, port 0 by default. */
export type StartStubOptions = Omit<ServerOptions, "admin"> & {
  /** The key of the first user; default a new one. */
  apiKey?: string;
};

/**
 * Starts the stub in this process on 127.0.0.1 and an ephemeral port, with a key for the data's first user; what it
 * returns drives the stub through its own admin API, as a test in another process would.
 */
export async function startStub(options: StartStubOptions = {}): Promise<StubHandle> {
  const { apiKey = newApiKey(), ...rest } = options;
  const firstUser = rest.fixtures?.users[0]?.id ?? "alice";
  const running = await startServer({
    port: 0,
    host: "127.0.0.1",
    ...rest,
    apiKeys: { ...rest.apiKeys, [firstUser]: apiKey },
  });
  return { ...connectStub(running.url, { apiKey }), close: () => running.close() };
}
