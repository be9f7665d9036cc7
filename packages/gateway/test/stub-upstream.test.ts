/**
 * The stub server as upstream: the operations' flows work through the gateway, and for valid traffic the
 * status and body bytes are those of going to a twin stub directly. Invalid requests are answered by the
 * gateway with the very body the stub gives.
 */
import { createApp } from "@compute-api/stub-server";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "./support/servers.js";

const keys = { alice: "cak_gw-test-alice-0001", bob: "cak_gw-test-bob-0002", dave: "cak_gw-test-dave-0004" };
type User = keyof typeof keys;

let direct: Listening;
let behind: Listening;
let gateway: TestGateway;

beforeAll(async () => {
  // Two stubs with the same data: one called directly, one behind the gateway; flows change both alike.
  direct = await listenLocal((await createApp({ apiKeys: keys })).app);
  behind = await listenLocal((await createApp({ apiKeys: keys })).app);
  gateway = await testGateway({ upstream: behind.url });
});
afterAll(async () => {
  await gateway.close();
  await behind.close();
  await direct.close();
});

type Step = {
  method?: string;
  path: string;
  as?: User | null;
  key?: string;
  body?: string;
  headers?: Record<string, string>;
};

async function call(base: string, { method = "GET", path, as = "alice", key, body, headers = {} }: Step) {
  const h: Record<string, string> = { ...headers };
  if (key ?? as) h.authorization = `Bearer ${key ?? keys[as!]}`;
  if (body !== undefined) h["content-type"] ??= "application/json";
  const res = await fetch(base + path, { method, headers: h, ...(body === undefined ? {} : { body }) });
  return {
    status: res.status,
    bytes: Buffer.from(await res.arrayBuffer()),
    violations: res.headers.get("x-contract-violations"),
  };
}

/** Sends a step both ways and expects the same status and bytes. */
async function same(step: Step, status: number) {
  const want = await call(direct.url, step);
  const got = await call(gateway.url, step);
  expect(want.status).toBe(status);
  expect(got.status).toBe(want.status);
  expect(got.bytes.toString()).toBe(want.bytes.toString());
  expect(got.violations).toBeNull();
  return got;
}

const machine = (project: string, id: string) => `/v1/projects/${project}/cluster-machines/${id}`;

describe("with the stub as upstream", () => {
  it("searches as each user, by text and by type", async () => {
    await same({ path: "/v1/resources/search?query=train" }, 200);
    await same({ path: "/v1/resources/search?query=type%3Acluster" }, 200);
    await same({ path: "/v1/resources/search?query=alpha", as: "bob" }, 200);
    await same({ path: "/v1/resources/search?query=zzz-no-match" }, 200);
    await same({ path: "/v1/resources/search?query=type%3Aspaceship" }, 400);
  });

  // That the gateway answers these itself, never forwarding them, requests.test.ts shows with a counting upstream.
  it("refuses a search of too many terms or type: terms with the stub's very body (the spec's x-search-terms)", async () => {
    const nine = Array.from({ length: 9 }, (_, i) => `t${i}`).join("%20");
    const eight = `${nine.slice(0, nine.lastIndexOf("%20"))}%20type%3Acluster`;
    const refused = await same({ path: `/v1/resources/search?query=${nine}` }, 400);
    expect(JSON.parse(refused.bytes.toString()).details[0].fieldViolations).toEqual([
      {
        field: "query",
        reason: "too-many-terms",
        description: "holds 9 terms besides its `type:` term; at most 8 are allowed",
      },
    ]);
    await same({ path: "/v1/resources/search?query=a%20type%3Adisk%20type%3Acluster" }, 400);
    await same({ path: `/v1/resources/search?query=${eight}` }, 200);
  });

  it("updates a cluster machine, and search shows it", async () => {
    await same(
      {
        method: "PATCH",
        path: machine("proj-alpha", "cm-alpha-01"),
        body: '{"powerState":"POWERING_OFF","priceHr":{"value":".5"}}',
      },
      200,
    );
    await same({ path: "/v1/resources/search?query=cm-alpha-01" }, 200);
    await same({ path: "/v1/resources/search?query=cl-train-01" }, 200);
  });

  it("passes on the stub's refusals: 401, 403, 404, 400", async () => {
    await same({ path: "/v1/resources/search?query=a", key: "cak_not-a-key-of-anyone" }, 401);
    await same({ method: "PATCH", path: machine("proj-gamma", "cm-x"), body: '{"state":"ACTIVE"}' }, 403);
    await same({ method: "PATCH", path: machine("proj-alpha", "cm-does-not-exist"), body: '{"state":"ACTIVE"}' }, 404);
    await same(
      { method: "PATCH", path: machine("proj-alpha", "cm-alpha-01"), body: '{"volumeIds":["vol-not-here"]}' },
      400,
    );
  });

  it("creates an API key that works at once, refuses a second with the same id, and refuses a user who may not", async () => {
    const body = '{"apikeyId":"gw-flow-key"}';
    const want = await call(direct.url, { method: "POST", path: "/v1/api-keys", body });
    const got = await call(gateway.url, { method: "POST", path: "/v1/api-keys", body });
    expect([got.status, want.status]).toEqual([200, 200]);
    const created = JSON.parse(got.bytes.toString()) as { id: string; key: string; createTime: string };
    const mask = (b: Buffer) => ({ ...(JSON.parse(b.toString()) as object), key: "…", createTime: "…" });
    expect(mask(got.bytes)).toEqual(mask(want.bytes));
    expect(gateway.logText()).not.toContain(created.key);

    await same({ method: "POST", path: "/v1/api-keys", body }, 409);
    await same({ method: "POST", path: "/v1/api-keys", body: '{"apikeyId":"dave-key"}', as: "dave" }, 403);
    expect((await call(gateway.url, { path: "/v1/resources/search?query=alpha", key: created.key })).status).toBe(200);
  });

  it.each([
    ["no Authorization", { path: "/v1/resources/search?query=a", as: null }, 401],
    [
      "an unknown field",
      { method: "PATCH", path: machine("proj-alpha", "cm-alpha-01"), body: '{"colour":"red"}' },
      400,
    ],
    [
      "a negative price",
      { method: "PATCH", path: machine("proj-alpha", "cm-alpha-01"), body: '{"priceHr":{"value":"-1"}}' },
      400,
    ],
    ["malformed JSON", { method: "POST", path: "/v1/api-keys", body: "{" }, 400],
    [
      "a body that is not JSON",
      { method: "POST", path: "/v1/api-keys", body: "apikeyId=x", headers: { "content-type": "text/plain" } },
      415,
    ],
    ["an unknown path", { path: "/v1/nothing-here" }, 404],
    ["a method the path lacks", { method: "DELETE", path: "/v1/resources/search?query=a" }, 405],
  ] as [string, Step, number][])("refuses %s itself, with the stub's own error body", async (_name, step, status) => {
    await same(step, status);
  });
});
