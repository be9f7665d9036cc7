/** createApiKey against a real stub: keys that work at once with their user's access, 409 on a duplicate id. */

import { expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, reasons, startTestStub, type TestStub, type UserId, violations } from "../support/stub.js";

let stub: TestStub;
beforeAll(async () => {
  stub = await startTestStub();
});
afterAll(() => stub.close());

interface Created {
  id: string;
  createTime: string;
  key: string;
}

const create = (apikeyId: unknown, as: UserId = "alice") =>
  stub.call("/v1/api-keys", { ...json("POST", { apikeyId }), as });

/** The resource names a key may see: every project and billing account search returns. */
async function visibleWith(key: string): Promise<string[]> {
  const names: string[] = [];
  for (const query of ["type:project", "type:billingAccount"]) {
    const res = await stub.call(`/v1/resources/search?query=${query}`, {
      as: null,
      headers: { authorization: `Bearer ${key}` },
    });
    const { results } = (await res.json()) as { results: { resourceName: string }[] };
    names.push(...results.map((r) => r.resourceName));
  }
  return names;
}

describe("createApiKey", () => {
  it("creates a recognizable 32-byte key, once, not to be cached", async () => {
    const started = Date.now();
    const res = await create("ci-deploy-key");
    const created = (await res.json()) as Created;
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(created.id).toBe("ci-deploy-key");
    expect(created.key).toMatch(/^cak_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(created.key.slice(4), "base64url")).toHaveLength(32);
    expect(Date.parse(created.createTime)).toBeGreaterThanOrEqual(started - 1000);
    expect(Date.parse(created.createTime)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("makes a key that works at once, with its user's access", async () => {
    const created = (await (await create("bob-laptop", "bob")).json()) as Created;
    const withNew = await visibleWith(created.key);
    expect(withNew).toEqual(await visibleWith(stub.keys.bob));
    expect(withNew).toEqual(["projects/proj-beta", "projects/proj-gamma", "billingAccounts/ba-research"]);
  });

  it("answers 409 ALREADY_EXISTS for an id the user has, from any of the user's keys", async () => {
    const first = (await (await create("twice-key")).json()) as Created;
    const again = await stub.call("/v1/api-keys", {
      ...json("POST", { apikeyId: "twice-key" }),
      as: null,
      headers: { authorization: `Bearer ${first.key}` },
    });
    const body = await expectErrorBody(again, 409);
    expect(body.details).toEqual([
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "ALREADY_EXISTS",
        domain: "compute-api",
        metadata: { apikeyId: "twice-key" },
      },
    ]);
    await expectErrorBody(await create("default"), 409);
  });

  it("lets another user use the same id", async () => {
    await create("shared-name", "alice");
    expect((await create("shared-name", "carol")).status).toBe(200);
  });

  it("makes a different key each time", async () => {
    const a = (await (await create("random-a")).json()) as Created;
    const b = (await (await create("random-b")).json()) as Created;
    expect(a.key).not.toBe(b.key);
  });

  it("answers 403 for a user who may not create keys", async () => {
    expect(reasons(await expectErrorBody(await create("dave-key", "dave"), 403))).toEqual(["PERMISSION_DENIED"]);
  });

  it.each([
    ["too short", "abc"],
    ["too long", "a".repeat(64)],
    ["uppercase", "CI-Key"],
    ["not a string", 12345],
  ])("answers 400 for an apikeyId %s", async (_name, apikeyId) => {
    expect(violations(await expectErrorBody(await create(apikeyId), 400)).map((v) => v.field)).toEqual(["apikeyId"]);
  });

  it("answers 400 for a body without apikeyId", async () => {
    const body = await expectErrorBody(await stub.call("/v1/api-keys", json("POST", {})), 400);
    expect(violations(body)).toMatchObject([{ field: "apikeyId", reason: "required" }]);
  });
});
