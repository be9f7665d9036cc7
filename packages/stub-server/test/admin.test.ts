/**
 * The admin API under /__stub/, over HTTP against the real stub: reset, snapshot and restore, load, the request
 * journal, the faults at run time and the admin token — each failure in the interface's error body.
 */
import { loadSpec } from "@compute-api/contract";
import { checkFixtures } from "@compute-api/fixtures";
import { describe, expect, it } from "vitest";
import { adminEndpoints } from "../src/admin.js";
import { maxLoadGenerate } from "../src/admin-state.js";
import { json, reasons, stubPerTest, type TestStub, validator, violations } from "./support/stub.js";

const spec = loadSpec();
const stub = stubPerTest();

/** An admin request, JSON as every write must say; the token, when given, as a bearer token. */
async function admin(s: TestStub, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {};
  if (method !== "GET") headers["content-type"] = "application/json";
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${s.url}/__stub${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text), headers: response.headers };
}

const searches = ["train", "type:cluster", "alpha", "cm-alpha-01", "proj-beta"];
const patchPath = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** The answers to the searches, as text. */
const answers = (s: TestStub) =>
  Promise.all(searches.map(async (q) => (await s.call(`/v1/resources/search?query=${encodeURIComponent(q)}`)).text()));

describe("GET /__stub/", () => {
  it("lists every endpoint, and each one answers (none is a 404)", async () => {
    const s = await stub();
    const { status, body } = await admin(s, "GET", "/");
    expect(status).toBe(200);
    expect(body.endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual(
      adminEndpoints.map(([method, path]) => `${method} ${path}`),
    );
    for (const [method, path] of adminEndpoints) {
      const answer = await admin(s, method, path.slice("/__stub".length), method === "POST" ? {} : undefined);
      // An endpoint of one item (`/answers/{id}`) answers 404 for an id that is not there.
      expect(path.includes("{") ? [404] : [200, 400], `${method} ${path}`).toContain(answer.status);
    }
  });

  it("answers what it does not serve with the error body: 404, 405, and 415 or 400 for a body that is not JSON", async () => {
    const s = await stub();
    const missing = await admin(s, "GET", "/nothing");
    expect(missing.status).toBe(404);
    expect(validator.validate("#/components/schemas/ErrorBody", missing.body)).toEqual([]);
    const wrongMethod = await admin(s, "GET", "/reset");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    const text = await fetch(`${s.url}/__stub/restore`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "users: []",
    });
    expect(text.status).toBe(415);
    const broken = await admin(s, "POST", "/restore", "{ not json");
    expect(broken.status).toBe(400);
    expect(validator.validate("#/components/schemas/ErrorBody", broken.body)).toEqual([]);
  });
});

describe("POST /__stub/reset", () => {
  it("brings back the first answers after PATCHes and new keys; the new keys stop working, the start keys do not", async () => {
    const s = await stub();
    const first = await answers(s);
    const firstPatch = await (await s.call(patchPath, json("PATCH", { priceHr: { value: "4.5" } }))).text();
    await s.call("/v1/projects/proj-alpha/cluster-machines/cm-alpha-02", json("PATCH", { powerState: "OFF" }));
    const created = await (await s.call("/v1/api-keys", json("POST", { apikeyId: "ci-key" }))).json();
    const bobs = await (await s.call("/v1/api-keys", { ...json("POST", { apikeyId: "ci-key" }), as: "bob" })).json();
    expect(await answers(s)).not.toEqual(first);

    const reset = await admin(s, "POST", "/reset");
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      resourceCount: expect.any(Number),
      userIds: ["alice", "bob", "carol", "dave", "erin"],
    });
    expect(await answers(s)).toEqual(first);
    expect((await s.call(patchPath, json("PATCH", { priceHr: { value: "4.5" } }))).status).toBe(200);
    await admin(s, "POST", "/reset");
    // The same PATCH answers as it did first; the same key id can be created again.
    expect(await (await s.call(patchPath, json("PATCH", { priceHr: { value: "4.5" } }))).text()).toBe(firstPatch);
    expect([created.key, bobs.key]).toEqual([expect.stringMatching(/^cak_/), expect.stringMatching(/^cak_/)]);
    for (const key of [created.key, bobs.key]) {
      const refused = await fetch(`${s.url}/v1/resources/search?query=a`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(refused.status).toBe(401);
    }
    expect((await s.call("/v1/api-keys", json("POST", { apikeyId: "ci-key" }))).status).toBe(200);
  });

  it("leaves a state equal to one of the two sides when it races 50 PATCHes", async () => {
    const s = await stub();
    const initial = (await admin(s, "GET", "/snapshot")).text;
    const values = Array.from({ length: 50 }, (_, i) => `${i + 1}.25`);
    const patches = values.map((value) =>
      s.call(patchPath, json("PATCH", { priceHr: { value }, powerState: Number(value) % 2 ? "OFF" : "ON" })),
    );
    const reset = admin(s, "POST", "/reset");
    const statuses = (await Promise.all(patches)).map((r) => r.status);
    expect(statuses).toEqual(values.map(() => 200));
    expect((await reset).status).toBe(200);
    const after = (await admin(s, "GET", "/snapshot")).text;
    if (after === initial) return;
    // Some PATCHes came after the reset: the state is the initial one with the last of them applied, nothing mixed.
    const machine = (JSON.parse(after).clusters as { machines: { id: string; priceHr?: { value: string } }[] }[])
      .flatMap((c) => c.machines)
      .find((m) => m.id === "cm-alpha-01");
    const last = machine?.priceHr?.value as string;
    expect(values).toContain(last);
    await admin(s, "POST", "/restore", JSON.parse(initial));
    await s.call(patchPath, json("PATCH", { priceHr: { value: last }, powerState: Number(last) % 2 ? "OFF" : "ON" }));
    expect((await admin(s, "GET", "/snapshot")).text).toBe(after);
  });
});

describe("GET /__stub/snapshot and POST /__stub/restore", () => {
  it("gives back the snapshot byte for byte after changes, as a fixture file --data reads, keys as SHA-256 only", async () => {
    const s = await stub();
    await s.call(patchPath, json("PATCH", { priceHr: { value: "2.75" }, volumeIds: [] }));
    const { key } = await (await s.call("/v1/api-keys", json("POST", { apikeyId: "snap-key" }))).json();
    const snapshot = await admin(s, "GET", "/snapshot");
    expect(snapshot.headers.get("content-type")).toMatch(/^application\/json/);
    expect(checkFixtures(snapshot.body, spec)).toEqual([]);
    for (const secret of [key, s.keys.alice]) expect(snapshot.text).not.toContain(secret);

    await s.call(patchPath, json("PATCH", { priceHr: { value: "9" }, powerState: "OFF" }));
    await s.call("/v1/api-keys", json("POST", { apikeyId: "later-key" }));
    expect((await admin(s, "GET", "/snapshot")).text).not.toBe(snapshot.text);
    const restored = await admin(s, "POST", "/restore", snapshot.text);
    expect(restored.status).toBe(200);
    expect((await admin(s, "GET", "/snapshot")).text).toBe(snapshot.text);
    // The key made before the snapshot works again; the later one is gone.
    const search = await fetch(`${s.url}/v1/resources/search?query=a`, { headers: { authorization: `Bearer ${key}` } });
    expect(search.status).toBe(200);
  });

  it("refuses a data set that cannot be served, naming each problem by its JSON pointer, and changes nothing", async () => {
    const s = await stub();
    const before = (await admin(s, "GET", "/snapshot")).text;
    const bad = JSON.parse(before);
    bad.clusters[0].machines[0].powerState = "SIDEWAYS";
    delete bad.users[0].projectIds;
    const refused = await admin(s, "POST", "/restore", bad);
    expect(refused.status).toBe(400);
    expect(validator.validate("#/components/schemas/ErrorBody", refused.body)).toEqual([]);
    expect(violations(refused.body).map((v) => v.field)).toEqual(
      expect.arrayContaining(["/clusters/0/machines/0/powerState", "/users/0"]),
    );
    expect((await admin(s, "GET", "/snapshot")).text).toBe(before);
  });
});

describe("POST /__stub/load", () => {
  it("loads a generated data set, which reset then goes back to, and the start key still works for its alice", async () => {
    const s = await stub();
    const loaded = await admin(s, "POST", "/load", { generate: 40, seed: 5 });
    expect(loaded.status).toBe(200);
    expect(loaded.body.resourceCount).toBe(40);
    const generated = (await admin(s, "GET", "/snapshot")).text;
    expect((await s.call("/v1/resources/search?query=type:cluster")).status).toBe(200);
    await s.call("/v1/api-keys", json("POST", { apikeyId: "gen-key" }));
    await admin(s, "POST", "/reset");
    expect((await admin(s, "GET", "/snapshot")).text).toBe(generated);
    expect((await admin(s, "POST", "/load", { builtin: true })).body.userIds).toContain("erin");
  });

  it("loads a data set given in the body, and refuses what is neither data, generate nor builtin", async () => {
    const s = await stub();
    const data = {
      users: [{ id: "alice", projectIds: ["proj-one"], billingAccountIds: [] }],
      billingAccounts: [{ id: "ba-one", displayName: "One" }],
      projects: [{ id: "proj-one", billingAccountId: "ba-one" }],
    };
    expect((await admin(s, "POST", "/load", { data })).body).toEqual({ resourceCount: 2, userIds: ["alice"] });
    const found = await (await s.call("/v1/resources/search?query=proj")).json();
    expect(found.results.map((r: { resourceName: string }) => r.resourceName)).toEqual(["projects/proj-one"]);
    for (const wrong of [{}, { generate: 3 }, { builtin: false }, { data, generate: 50 }, []]) {
      const refused = await admin(s, "POST", "/load", wrong);
      expect(refused.status, JSON.stringify(wrong)).toBe(400);
      expect(reasons(refused.body)).toEqual(["INVALID_ARGUMENT"]);
    }
    expect((await admin(s, "GET", "/snapshot")).body.users).toHaveLength(1);
  });
});

describe("the limit of a generated load", () => {
  it(`refuses more than ${maxLoadGenerate} resources with a 400 naming the limit, and changes nothing`, async () => {
    const s = await stub();
    const before = (await admin(s, "GET", "/snapshot")).text;
    for (const generate of [maxLoadGenerate + 1, 1_500_000, 10_000_000]) {
      const refused = await admin(s, "POST", "/load", { generate, seed: 1 });
      expect(refused.status, String(generate)).toBe(400);
      expect(validator.validate("#/components/schemas/ErrorBody", refused.body)).toEqual([]);
      expect(violations(refused.body)).toEqual([
        expect.objectContaining({
          field: "body.generate",
          description: expect.stringContaining(`from 10 to ${maxLoadGenerate}`),
        }),
      ]);
    }
    expect((await admin(s, "GET", "/snapshot")).text).toBe(before);
  });
});

describe("GET /__stub/requests", () => {
  it("shows exactly what was sent — method, path, query, headers, body, status, operationId, violations — and never a key", async () => {
    const s = await stub();
    const { key } = await (await s.call("/v1/api-keys", json("POST", { apikeyId: "journal-key" }))).json();
    await s.call("/v1/resources/search?query=train&query=alpha", { headers: { "x-test": "journal" } });
    const patch = { priceHr: { value: "3.5" }, volumeIds: [key] };
    const refused = await s.call(patchPath, json("PATCH", patch));
    expect(refused.status).toBe(400);
    await fetch(`${s.url}/v1/resources/search?query=${key}`, { headers: { authorization: `Bearer ${key}` } });

    const { status, body, text } = await admin(s, "GET", "/requests");
    expect(status).toBe(200);
    expect(text).not.toContain(key);
    expect(text).not.toContain(s.keys.alice);
    const [create, search, patched, byNewKey] = body.requests;
    expect(create).toMatchObject({
      seq: 1,
      method: "POST",
      path: "/v1/api-keys",
      body: { apikeyId: "journal-key" },
      status: 200,
      operationId: "createApiKey",
      userId: "alice",
    });
    expect(create.headers.authorization).toBe("Bearer [redacted]");
    expect(search).toMatchObject({
      method: "GET",
      path: "/v1/resources/search",
      query: { query: ["train", "alpha"] },
      status: 400,
      operationId: "searchResources",
    });
    expect(search.headers["x-test"]).toBe("journal");
    expect(patched).toMatchObject({
      method: "PATCH",
      path: patchPath,
      body: { priceHr: { value: "3.5" }, volumeIds: ["[redacted]"] },
      status: 400,
      operationId: "updateClusterMachine",
    });
    expect(patched.violations.map((v: { field: string }) => v.field)).toEqual(["volumeIds[0]"]);
    expect(byNewKey).toMatchObject({ query: { query: "[redacted]" }, status: 200, userId: "alice" });
    expect(body.requests).toHaveLength(4);
  });

  it("filters by method, path (with *), operationId, status (or its class), since and limit; refuses an unknown filter", async () => {
    const s = await stub();
    await s.call("/v1/resources/search?query=train");
    await s.call(patchPath, json("PATCH", { powerState: "OFF" }));
    await s.call("/v1/projects/proj-alpha/cluster-machines/nope", json("PATCH", { powerState: "OFF" }));
    await s.call("/v1/resources/search?query=");
    await s.call("/nowhere");
    const seqs = async (query: string) =>
      (await admin(s, "GET", `/requests${query}`)).body.requests.map((e: { seq: number }) => e.seq);
    expect(await seqs("")).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs("?method=patch")).toEqual([2, 3]);
    expect(await seqs("?path=/v1/projects/*/cluster-machines/*")).toEqual([2, 3]);
    expect(await seqs(`?path=${patchPath}`)).toEqual([2]);
    expect(await seqs("?operationId=searchResources")).toEqual([1, 4]);
    expect(await seqs("?status=4xx")).toEqual([3, 4, 5]);
    expect(await seqs("?status=404")).toEqual([3, 5]);
    expect(await seqs("?since=3")).toEqual([4, 5]);
    expect(await seqs("?since=2000-01-01T00:00:00Z&limit=2")).toEqual([4, 5]);
    const refused = await admin(s, "GET", "/requests?verb=GET&status=abc");
    expect(refused.status).toBe(400);
    expect(violations(refused.body).map((v) => v.field)).toEqual(["query.verb", "query.status"]);
    await admin(s, "DELETE", "/requests");
    expect(await seqs("")).toEqual([]);
    await s.call("/v1/resources/search?query=train");
    expect(await seqs("")).toEqual([6]);
  });

  it("keeps only the last --journal-size requests, and none of the admin API's own", async () => {
    const s = await stub({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await s.call(`/v1/resources/search?query=q${i}`);
    await admin(s, "GET", "/faults");
    const { body } = await admin(s, "GET", "/requests");
    expect(body.requests.map((e: { seq: number }) => e.seq)).toEqual([3, 4, 5]);
    expect(body.lastSeq).toBe(5);
  });
});

describe("/__stub/faults", () => {
  it("reads and changes the faults at run time, in the flags' syntax; DELETE goes back to the start's", async () => {
    const s = await stub({ faults: { latencyMs: { min: 0, max: 5 } } });
    expect((await admin(s, "GET", "/faults")).body).toEqual({
      faults: null,
      latency: "0-5",
      drop: null,
      rateLimit: null,
      prefer: true,
      seed: 1,
      retryAfter: 1,
      scenarios: null,
    });
    const changed = await admin(s, "PATCH", "/faults", { faults: "503=100%", latency: null });
    expect(changed.body).toMatchObject({ faults: "503=100%", latency: null });
    const failed = await s.call("/v1/resources/search?query=train");
    expect(failed.status).toBe(503);
    expect(failed.headers.get("retry-after")).toBe("1");
    expect((await s.call("/v1/resources/search?query=train", { headers: { prefer: "code=429" } })).status).toBe(503);

    await admin(s, "PATCH", "/faults", { faults: null, rateLimit: "1/min", prefer: false });
    expect((await s.call("/v1/resources/search?query=train")).status).toBe(200);
    const limited = await s.call("/v1/resources/search?query=train", { headers: { prefer: "code=503" } });
    expect(limited.status).toBe(429);
    expect(
      (await s.call("/v1/resources/search?query=train", { as: "bob", headers: { prefer: "code=503" } })).status,
    ).toBe(200);

    const back = await admin(s, "DELETE", "/faults");
    expect(back.body).toMatchObject({ latency: "0-5", rateLimit: null, prefer: true });
    expect((await s.call("/v1/resources/search?query=train")).status).toBe(200);
    const journal = await admin(s, "GET", "/requests?status=5xx");
    expect(journal.body.requests.map((e: { fault?: string }) => e.fault)).toEqual(["503", "503"]);
  });

  it("refuses a setting the flags would refuse, naming it, and changes nothing", async () => {
    const s = await stub();
    const refused = await admin(s, "PATCH", "/faults", { faults: "200=5%", drop: "2", color: "red", prefer: "no" });
    expect(refused.status).toBe(400);
    expect(violations(refused.body).map((v) => v.field)).toEqual([
      "body.faults",
      "body.drop",
      "body.color",
      "body.prefer",
    ]);
    expect((await admin(s, "GET", "/faults")).body.faults).toBeNull();
    expect((await s.call("/v1/resources/search?query=train")).status).toBe(200);
  });
});

describe("the admin token", () => {
  it("refuses every admin request without it, or with a user's API key, with a 401 error body", async () => {
    const s = await stub({ admin: { token: "admin-secret-token" } });
    for (const token of [undefined, "wrong-token", s.keys.alice]) {
      const refused = await admin(s, "POST", "/reset", undefined, token);
      expect(refused.status).toBe(401);
      expect(reasons(refused.body)).toEqual(["UNAUTHENTICATED"]);
      expect(refused.text).not.toContain("admin-secret-token");
    }
    expect((await admin(s, "GET", "/requests", undefined, "admin-secret-token")).status).toBe(200);
    expect((await admin(s, "POST", "/reset", undefined, "admin-secret-token")).status).toBe(200);
  });

  it("serves no admin API at all when it is off: /__stub/ is a 404 as any path outside the spec", async () => {
    const s = await stub({ admin: false });
    const { status, body } = await admin(s, "GET", "/");
    expect(status).toBe(404);
    expect(reasons(body)).toEqual(["NOT_FOUND"]);
  });
});
