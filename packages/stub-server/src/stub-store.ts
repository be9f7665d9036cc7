/**
 * The stub's store made from its options, written once: the Express app (app.ts) and the MSW handlers (msw/) serve
 * the same data the same way. Nothing here loads Express or a Node built-in.
 */
import type { OpenApiDocument } from "@compute-api/contract";
import { builtinFixtures, defaultKeyId, type Fixtures, validFixtures } from "@compute-api/fixtures/data";
import { Store } from "./store/store.js";

/** What a stub's store is made of. */
export interface StubStoreOptions {
  /** The data to serve; default the built-in fixtures. Checked against the spec (a FixtureError names each problem). */
  fixtures?: Fixtures | undefined;
  /** The fixtures are the store's to keep and change, and known valid: neither checked again nor copied. */
  adoptFixtures?: boolean | undefined;
  /** Extra API keys by user id, each registered with the key id `default`: `{ alice: "cak_…" }`. */
  apiKeys?: Record<string, string> | undefined;
  /** Where a reset takes the data it goes back to: a function that makes it afresh at each call. */
  baseline?: (() => Fixtures) | undefined;
}

/** The store of a stub: its data checked (unless adopted), its reset point, and the keys given for its users. */
export function createStubStore(options: StubStoreOptions, spec: OpenApiDocument): Store {
  const { fixtures, adoptFixtures = false } = options;
  const baseline = options.baseline ? { baseline: options.baseline } : {};
  const store = fixtures
    ? new Store(adoptFixtures ? fixtures : validFixtures(fixtures, spec), undefined, {
        adopt: adoptFixtures,
        ...baseline,
      })
    : new Store(builtinFixtures(), undefined, { adopt: true, baseline: options.baseline ?? builtinFixtures });
  for (const [userId, key] of Object.entries(options.apiKeys ?? {})) {
    if (!store.addApiKey(userId, defaultKeyId, key)) throw new Error(`apiKeys: no user '${userId}' in the data`);
  }
  return store;
}
