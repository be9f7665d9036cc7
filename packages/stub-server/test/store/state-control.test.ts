/**
 * The store's state control, without HTTP: a snapshot is a data set `--data` reads, restore and load replace the
 * state whole, reset goes back to the start, the keys given from outside stay, and an operation of a user
 * authenticated before a replacement runs on the state it was authenticated on.
 */
import { loadSpec } from "@compute-api/contract";
import { builtinFixtures, checkFixtures, generateFixtures, generatingFixtures } from "@compute-api/fixtures";
import { describe, expect, it } from "vitest";
import { Store, type User } from "../../src/store/store.js";

const spec = loadSpec();

function started(): { store: Store; alice: User } {
  const store = new Store(builtinFixtures());
  store.addApiKey("alice", "default", "cak_alice-test");
  const alice = store.authenticate("cak_alice-test");
  if (!alice) throw new Error("no alice");
  return { store, alice };
}

const patch = (store: Store, user: User, value: string) =>
  store.updateClusterMachine(user, "proj-alpha", "cm-alpha-01", { priceHr: { value }, powerState: "OFF" });

describe("Store state control", () => {
  it("snapshots a data set that a fixture file may hold, with keys as SHA-256 only", () => {
    const { store, alice } = started();
    const { key } = store.createApiKey(alice, "ci-key");
    const snapshot = store.snapshot();
    expect(checkFixtures(snapshot, spec)).toEqual([]);
    const text = JSON.stringify(snapshot);
    expect(text).not.toContain(key);
    expect(text).not.toContain("cak_alice-test");
    expect(snapshot.users.find((u) => u.id === "alice")?.apiKeys?.map((k) => k.id)).toEqual(["default", "ci-key"]);
  });

  it("restores a snapshot byte for byte, after changes, and a restored snapshot snapshots the same", () => {
    const { store, alice } = started();
    patch(store, alice, "3.5");
    const before = JSON.stringify(store.snapshot());
    patch(store, alice, "9");
    store.createApiKey(alice, "later");
    expect(JSON.stringify(store.snapshot())).not.toBe(before);
    store.restore(JSON.parse(before));
    expect(JSON.stringify(store.snapshot())).toBe(before);
    // The key made after the snapshot is gone; the one of the snapshot works.
    expect(store.authenticate("cak_alice-test")?.id).toBe("alice");
  });

  it("resets to the data it started with and keeps the keys given from outside", () => {
    const { store, alice } = started();
    const first = JSON.stringify(store.snapshot());
    const { key } = store.createApiKey(alice, "ci-key");
    patch(store, alice, "42");
    store.reset();
    expect(JSON.stringify(store.snapshot())).toBe(first);
    expect(store.authenticate(key)).toBeUndefined();
    expect(store.authenticate("cak_alice-test")?.id).toBe("alice");
  });

  it("loads another data set, which reset goes back to from then on; a generated one by its function", () => {
    const { store } = started();
    const generate = () => generateFixtures({ count: 50, seed: 3, spec });
    store.load(generate);
    expect(store.resourceCount).toBe(50);
    const loaded = JSON.stringify(store.snapshot());
    // The generated data has an alice too: the key given for her at the start still works, on her new access.
    const alice = store.authenticate("cak_alice-test") as User;
    expect([...alice.projectIds]).not.toContain("proj-alpha");
    expect(store.search(alice, "type:cluster").length).toBeGreaterThan(0);
    store.createApiKey(alice, "later");
    store.reset();
    expect(JSON.stringify(store.snapshot())).toBe(loaded);
    store.load(builtinFixtures());
    expect(store.resourceCount).toBe(new Store(builtinFixtures()).resourceCount);
  });

  it("runs an operation of a user authenticated before a reset on that state: the reset wins, nothing is mixed", () => {
    const { store, alice } = started();
    const first = JSON.stringify(store.snapshot());
    store.reset();
    // `alice` was authenticated before the reset: her PATCH goes to the state she saw, which the reset replaced.
    patch(store, alice, "77");
    expect(JSON.stringify(store.snapshot())).toBe(first);
    const again = store.authenticate("cak_alice-test") as User;
    patch(store, again, "77");
    expect(JSON.stringify(store.snapshot())).not.toBe(first);
  });

  it("changes nothing when a data set cannot be built", () => {
    const { store } = started();
    const first = JSON.stringify(store.snapshot());
    expect(() =>
      store.load(() => {
        throw new Error("the file is gone");
      }),
    ).toThrow("the file is gone");
    expect(JSON.stringify(store.snapshot())).toBe(first);
    store.reset();
    expect(JSON.stringify(store.snapshot())).toBe(first);
  });
});

describe("Store changes in slices (the admin API's)", () => {
  const generating = (count: number, seed: number) => () => generatingFixtures({ count, seed, spec });

  it("builds a generated set in slices, serving the state before meanwhile, and swaps it in whole at the end", async () => {
    const { store, alice } = started();
    const before = store.resourceCount;
    let slices = 0;
    let done = false;
    const change = store.changeInSlices({ load: generating(20_000, 4) }).finally(() => {
      done = true;
    });
    // Between slices the event loop is free: the old state answers, whole.
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (!done) {
        slices++;
        expect(store.resourceCount).toBe(before);
        expect(store.search(alice, "type:cluster").length).toBeGreaterThan(0);
      }
    }
    await change;
    expect(slices).toBeGreaterThan(1);
    expect(store.resourceCount).toBe(20_000);
    // The same resources as the same set built at once (the users differ by the key given at the start).
    const resources = ({ users: _users, ...rest }: ReturnType<Store["snapshot"]>) => JSON.stringify(rest);
    const atOnce = new Store(generateFixtures({ count: 20_000, seed: 4, spec }));
    expect(resources(store.snapshot())).toBe(resources(atOnce.snapshot()));
    // What reset goes back to from now on.
    store.createApiKey(store.authenticate("cak_alice-test") as User, "later");
    await store.changeInSlices({ reset: true });
    expect(store.resourceCount).toBe(20_000);
  });

  it("changes nothing when its signal fires during the build (its request's deadline), nor when its data cannot be made", async () => {
    const { store } = started();
    const first = JSON.stringify(store.snapshot());
    const controller = new AbortController();
    const change = store.changeInSlices({ load: generating(20_000, 5) }, controller.signal);
    setTimeout(() => controller.abort(new Error("the deadline passed")), 0);
    await expect(change).rejects.toThrow("the deadline passed");
    expect(JSON.stringify(store.snapshot())).toBe(first);
    const failing = store.changeInSlices({
      load: () => {
        throw new Error("the file is gone");
      },
    });
    await expect(failing).rejects.toThrow("the file is gone");
    await store.changeInSlices({ reset: true });
    expect(JSON.stringify(store.snapshot())).toBe(first);
  });

  it("takes changes asked for together in turn, the last asked for last", async () => {
    const { store } = started();
    const asked = [
      store.changeInSlices({ load: generating(3000, 1) }),
      store.changeInSlices({ restore: builtinFixtures() }),
      store.changeInSlices({ load: generating(2000, 2) }),
    ];
    await Promise.all(asked);
    expect(store.resourceCount).toBe(2000);
  });
});
