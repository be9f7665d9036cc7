/** searchResources against real stubs: the built-in data for the rules, a generated set for the cap. */
import { createSchemaValidator, loadSpec } from "@compute-api/contract";
import { generateFixtures } from "@compute-api/fixtures";
import { expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStub, type TestStub, type UserId, violations } from "../support/stub.js";

interface Result {
  resourceName: string;
  resourceType: string;
  score: number;
  [typed: string]: unknown;
}

let stub: TestStub;
let large: TestStub;
beforeAll(async () => {
  [stub, large] = await Promise.all([startTestStub(), startTestStub({ fixtures: generateFixtures({ count: 2000 }) })]);
});
afterAll(() => Promise.all([stub.close(), large.close()]));

const validator = createSchemaValidator(loadSpec());

async function search(query: string, as: UserId = "alice", on = stub): Promise<Result[]> {
  const res = await on.call(`/v1/resources/search?query=${query}`, { as });
  const body = (await res.json()) as { results: Result[] };
  expect(res.status).toBe(200);
  expect(validator.validate("#/components/schemas/SearchResourcesResponse", body)).toEqual([]);
  return body.results;
}

const summary = (results: Result[]) => results.map((r) => `${r.score} ${r.resourceName}`);

describe("searchResources", () => {
  it("answers the spec's example query", async () => {
    const results = await search("train%20type:cluster");
    expect(summary(results)).toEqual(["60 projects/proj-alpha/clusters/cl-train-01"]);
    expect(Object.keys(results[0] ?? {}).sort()).toEqual(["cluster", "resourceName", "resourceType", "score"]);
    expect(results[0]?.cluster).toMatchObject({ id: "cl-train-01", machines: expect.any(Array) });
  });

  it("orders by score, then resourceName", async () => {
    expect(summary(await search("proj-beta"))[0]).toBe("100 projects/proj-beta");
    expect(summary(await search("train"))).toEqual([
      "60 projects/proj-alpha/clusters/cl-train-01",
      "60 projects/proj-alpha/volumes/vol-train-data",
    ]);
  });

  it("scores the mean of the terms", async () => {
    // cl-train-01: exact id (100); ACTIVE: exact state (50).
    expect(summary(await search("cl-train-01+active"))).toEqual(["75 projects/proj-alpha/clusters/cl-train-01"]);
  });

  it.each([
    ["alice", "type:project", ["projects/proj-alpha", "projects/proj-beta"]],
    ["alice", "type:billingAccount", ["billingAccounts/ba-main"]],
    ["carol", "type:billingAccount", []],
    ["dave", "type:project", ["projects/proj-delta"]],
    ["alice", "gamma", []],
    ["bob", "type:cluster%20gamma", ["projects/proj-gamma/clusters/cl-sim-01"]],
  ] as const)("shows %s only what that user may access (%s)", async (user, query, names) => {
    expect((await search(query, user)).map((r) => r.resourceName)).toEqual(names);
  });

  it("answers no match with an empty list", async () => {
    expect(await search("nothing-is-called-this")).toEqual([]);
  });

  it("reads + and %20 as spaces and an unencoded colon", async () => {
    expect(await search("train+TYPE:Cluster")).toEqual(await search("train%20type%3Acluster"));
  });

  it.each([
    ["an unknown type", "type:server", "type-unknown"],
    ["two type terms", "type:disk%20type:volume", "type-repeated"],
    ["no term", "%20%20", "terms-required"],
    ["9 terms", "a%20b%20c%20d%20e%20f%20g%20h%20i", "too-many-terms"],
    ["9 terms beside a type term", "type:disk+a+a+a+a+a+a+a+a+a", "too-many-terms"],
    ["a control character", "train%09gpu", "pattern"],
    ["over 256 characters", "a".repeat(257), "maxLength"],
  ])("answers 400 naming query for %s", async (_name, query, reason) => {
    const body = await expectErrorBody(await stub.call(`/v1/resources/search?query=${query}`), 400);
    expect(violations(body)).toMatchObject([{ field: "query", reason }]);
  });

  it("answers 8 terms besides a type term", async () => {
    expect(await search("type:cluster+a+a+a+a+a+a+a+train")).toMatchObject([
      { resourceName: "projects/proj-alpha/clusters/cl-train-01" },
    ]);
  });

  it("returns at most 100 results, in order", async () => {
    const results = await search("type:disk", "alice", large);
    const names = results.map((r) => r.resourceName);
    expect(results).toHaveLength(100);
    expect(names).toEqual([...names].sort());
    expect(new Set(results.map((r) => r.score))).toEqual(new Set([0]));
  });
});
