/**
 * The operations differential, through the real HTTP servers: the stub and the PostgreSQL server, both started
 * with the same keys on the built-in data, are sent the same requests in the same order — valid and invalid PATCHes
 * and createApiKeys, then searches that show their effect — and must answer the same status, headers of note and
 * body (a new key's secret and time aside, which differ by nature).
 */
import { type RunningStub, startServer } from "@compute-api/stub-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningPostgresServer, startPostgresServer } from "../../src/index.js";
import type { Target, TargetDatabase } from "./targets.js";

/** The keys of the built-in users, the same on both servers. */
export const keys = {
  alice: "cak_test-alice",
  bob: "cak_test-bob",
  carol: "cak_test-carol",
  dave: "cak_test-dave",
  erin: "cak_test-erin",
} as const;

type User = keyof typeof keys;

/** One request of the list: who sends it (or which raw Authorization), method, path and body. */
interface Call {
  name: string;
  as: User | { authorization?: string };
  method: "GET" | "PATCH" | "POST";
  path: string;
  body?: unknown;
}

const patch = (name: string, as: User, projectId: string, id: string, body: unknown): Call => ({
  name,
  as,
  method: "PATCH",
  path: `/v1/projects/${projectId}/cluster-machines/${id}`,
  body,
});
const createKey = (name: string, as: User, apikeyId: unknown): Call => ({
  name,
  as,
  method: "POST",
  path: "/v1/api-keys",
  body: { apikeyId },
});
const search = (name: string, as: User, query: string): Call => ({
  name,
  as,
  method: "GET",
  path: `/v1/resources/search?query=${encodeURIComponent(query)}`,
});

/** The requests, in order: each may depend on what the ones before it changed. */
export const calls: Call[] = [
  patch("a power state", "alice", "proj-alpha", "cm-alpha-01", { powerState: "OFF" }),
  patch("a price, normalized", "alice", "proj-alpha", "cm-alpha-01", { priceHr: { value: "+.5E0" } }),
  patch("every field at once", "bob", "proj-beta", "cm-beta-01", {
    powerState: "ON",
    state: "ACTIVE",
    priceHr: { value: "3.25" },
    volumeIds: ["vol-beta-archive"],
  }),
  patch("volumes replaced", "alice", "proj-alpha", "cm-alpha-02", {
    volumeIds: ["vol-alpha-scratch", "vol-train-data"],
  }),
  patch("volumes emptied", "alice", "proj-alpha", "cm-alpha-02", { volumeIds: [] }),
  patch("a deploy bot may update", "erin", "proj-alpha", "cm-alpha-03", { powerState: "REBOOTING", state: "FAILED" }),
  patch("a project of another user", "alice", "proj-gamma", "cm-gamma-01", { powerState: "OFF" }),
  patch("a project that does not exist", "alice", "proj-nowhere", "cm-alpha-01", { powerState: "OFF" }),
  patch("a machine not in the project", "alice", "proj-beta", "cm-alpha-01", { powerState: "OFF" }),
  patch("a machine that does not exist", "alice", "proj-alpha", "cm-nope", { powerState: "OFF" }),
  patch("volumes of another project or none", "alice", "proj-alpha", "cm-alpha-01", {
    volumeIds: ["vol-alpha-data", "vol-beta-archive", "vol-nope"],
  }),
  patch("a price too long once normalized", "alice", "proj-alpha", "cm-alpha-01", {
    priceHr: { value: `.${"5".repeat(63)}` },
  }),
  patch("a price whose cluster total cannot be written", "alice", "proj-alpha", "cm-alpha-01", {
    priceHr: { value: "1e99999" },
  }),
  patch("bad volumes and a bad price: both named, nothing changed", "alice", "proj-alpha", "cm-alpha-01", {
    volumeIds: ["vol-nope"],
    priceHr: { value: "1e99999" },
    powerState: "ON",
  }),
  patch("an empty body", "alice", "proj-alpha", "cm-alpha-01", {}),
  patch("an unknown field", "alice", "proj-alpha", "cm-alpha-01", { color: "red" }),
  patch("a negative price", "alice", "proj-alpha", "cm-alpha-01", { priceHr: { value: "-1" } }),
  patch("a zero price", "alice", "proj-alpha", "cm-alpha-01", { priceHr: { value: "0" } }),
  patch("a huge but writable price", "bob", "proj-beta", "cm-beta-02", { priceHr: { value: "1e300" } }),
  { ...patch("no key", "alice", "proj-alpha", "cm-alpha-01", { powerState: "OFF" }), as: {} },
  {
    ...patch("an unknown key", "alice", "proj-alpha", "cm-alpha-01", { powerState: "OFF" }),
    as: { authorization: "Bearer cak_nobody" },
  },
  createKey("a new key", "alice", "ci-key"),
  createKey("the same id again", "alice", "ci-key"),
  createKey("the same id for another user", "bob", "ci-key"),
  createKey("the id of the key given at start", "alice", "default"),
  createKey("a user who may not create keys", "dave", "dave-key"),
  createKey("a deploy bot", "erin", "erin-key"),
  createKey("an id too short", "alice", "ab"),
  createKey("an id with capitals", "alice", "CI-Key"),
  createKey("an id that is not a string", "alice", 42),
  search("the clusters after the changes", "alice", "type:cluster"),
  search("bob's clusters", "bob", "type:cluster"),
  search("a changed machine's cluster", "alice", "cl-train-01"),
  search("two terms", "bob", "cl batch"),
  search("a type and a word", "alice", "type:volume alpha"),
  search("a deploy bot may not search", "erin", "train"),
  search("no terms", "alice", "   "),
  search("an unknown type", "alice", "type:planet"),
  search("two types", "alice", "type:disk type:image"),
  search("8 terms and a type, the most a query may hold", "alice", "type:cluster a a a a a a a train"),
  search("9 terms", "alice", "type:cluster a b c d e f g h train"),
  search("nothing", "alice", "zz-nothing"),
];

/** An answer with what differs by nature made comparable: a new key's secret and creation time. */
async function answerOf(base: string, call: Call): Promise<unknown> {
  const authorization = typeof call.as === "string" ? `Bearer ${keys[call.as]}` : call.as.authorization;
  const response = await fetch(`${base}${call.path}`, {
    method: call.method,
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(call.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (call.method === "POST" && response.status === 200) {
    expect(body.key).toMatch(/^cak_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(String(body.createTime))).not.toBeNaN();
    body.key = "<secret>";
    body.createTime = "<time>";
  }
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    cacheControl: response.headers.get("cache-control"),
    body,
  };
}

/** Declares the differential on the target. */
export function operationsSuite(target: Target): void {
  describe(`the operations on ${target.name} answer as the stub does`, () => {
    let database: TargetDatabase;
    let stub: RunningStub;
    let server: RunningPostgresServer;

    beforeAll(async () => {
      database = await target.open();
      stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: keys });
      server = await startPostgresServer({ ...database.options, port: 0, host: "127.0.0.1", apiKeys: keys });
    });
    afterAll(async () => {
      await stub?.close();
      await server?.close();
      await database?.close();
    });

    it("for every request of the list, in order", async () => {
      const statuses = new Set<number>();
      for (const call of calls) {
        const theirs = await answerOf(stub.url, call);
        const mine = await answerOf(server.url, call);
        expect(mine, call.name).toEqual(theirs);
        statuses.add((mine as { status: number }).status);
      }
      // The list reaches every status the three operations answer without an injected fault.
      expect([...statuses].sort()).toEqual([200, 400, 401, 403, 404, 409]);
    });

    it("gives a created key its user's access at once", async () => {
      const response = await fetch(`${server.url}/v1/api-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.carol}`, "content-type": "application/json" },
        body: JSON.stringify({ apikeyId: "carol-new" }),
      });
      const { key } = (await response.json()) as { key: string };
      const found = await fetch(`${server.url}/v1/resources/search?query=type:project`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(found.status).toBe(200);
      const { results } = (await found.json()) as { results: { resourceName: string }[] };
      expect(results.map((r) => r.resourceName)).toEqual(["projects/proj-gamma"]);
      const [row] = await server.database.query<{ sha256: string }>(
        "SELECT sha256 FROM api_keys WHERE user_id = 'carol' AND key_id = 'carol-new'",
      );
      expect(row?.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(await server.database.query("SELECT * FROM api_keys"))).not.toContain(key);
    });
  });
}
