import { compileContract, loadSpec } from "@compute-api/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createGenerators, type GeneratorOptions, keyPrefixOf, queryRuleQueries } from "../src/generators.js";
import { createRequestArbitraries } from "../src/requests.js";
import { queryOutcome } from "../src/search-rules.js";
import { seed } from "./support.js";

const spec = loadSpec();
const requests = createRequestArbitraries(spec);
const contract = compileContract({ spec });
const operationIds = ["searchResources", "updateClusterMachine", "createApiKey"];
const writes = { projectId: "proj-alpha", machineId: "cm-alpha-01" };
const options: GeneratorOptions = {
  requests,
  contract,
  operationIds,
  apiKey: "cak_own",
  seed: 1234,
  words: ["proj-alpha"],
  resourceTypes: ["cluster", "project"],
};

/** The cases of the generator of that name. */
const casesOf = (given: Partial<GeneratorOptions>, name: string, numRuns = 40) => {
  const generator = createGenerators({ ...options, ...given }).find((g) => g.name === name);
  if (!generator) throw new Error(`no generator ${name}`);
  return fc.sample(generator.arbitrary, { seed, numRuns });
};

describe("createGenerators", () => {
  it.each<[string, { given: Partial<GeneratorOptions>; want: string[] }]>([
    [
      "read-only: valid searches, and broken and key-less requests of every operation",
      {
        given: {},
        want: [
          "valid searchResources",
          "query rules searchResources",
          "broken searchResources",
          "no usable key searchResources",
          "broken updateClusterMachine",
          "no usable key updateClusterMachine",
          "broken createApiKey",
          "no usable key createApiKey",
        ],
      },
    ],
    [
      "with writes: valid PATCHes and new keys too",
      {
        given: { writes },
        want: [
          "valid searchResources",
          "query rules searchResources",
          "broken searchResources",
          "no usable key searchResources",
          "valid updateClusterMachine",
          "broken updateClusterMachine",
          "no usable key updateClusterMachine",
          "valid createApiKey",
          "broken createApiKey",
          "no usable key createApiKey",
        ],
      },
    ],
    [
      "only the operations asked for",
      { given: { operationIds: ["createApiKey"] }, want: ["broken createApiKey", "no usable key createApiKey"] },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(createGenerators({ ...options, ...given }).map((g) => g.name)).toEqual(want);
  });

  it("valid PATCHes go to the one machine of the writes", () => {
    for (const c of casesOf({ writes }, "valid updateClusterMachine"))
      expect(c.request.path).toBe("/v1/projects/proj-alpha/cluster-machines/cm-alpha-01");
  });

  it.each(["broken updateClusterMachine", "no usable key updateClusterMachine"])(
    "%s: never the machine of the writes, mostly one that does not exist",
    (name) => {
      const paths = casesOf({ writes }, name, 100).map((c) => c.request.path);
      for (const path of paths) expect(path).not.toMatch(/cm-alpha-01/);
      expect(paths.filter((p) => p.includes("/cluster-machines/conformance-no-such-id")).length).toBeGreaterThan(25);
    },
  );

  it.each(["valid createApiKey", "no usable key createApiKey"])("%s: new keys' ids carry the run's prefix", (name) => {
    for (const c of casesOf({ writes }, name)) {
      const { apikeyId } = JSON.parse(String(c.request.body)) as { apikeyId: string };
      expect(apikeyId.startsWith(`${keyPrefixOf(1234)}-`), apikeyId).toBe(true);
    }
  });

  it("key-less requests carry no Authorization or one that is not the run's key; the others carry the key", () => {
    for (const c of casesOf({}, "no usable key searchResources"))
      expect(c.request.headers?.authorization).not.toBe("Bearer cak_own");
    for (const c of casesOf({}, "broken createApiKey")) expect(c.request.headers?.authorization).toBe("Bearer cak_own");
  });

  it("judges no answer at all by not_a_server_error alone", () => {
    const [c] = casesOf({}, "broken searchResources", 1);
    expect(c?.judge({ status: 0, headers: {}, text: "no answer: ECONNRESET", json: undefined })).toEqual({
      not_a_server_error: "no answer: ECONNRESET",
    });
  });

  it("holds searches to the key's access and the documented order", () => {
    const access = { projects: new Set(["proj-alpha"]), billingAccounts: new Set<string>(), complete: true };
    const [c] = casesOf({ access }, "valid searchResources", 1);
    const json = { results: [{ resourceName: "projects/proj-gamma", resourceType: "project", score: 1 }] };
    const verdicts = c?.judge({ status: 200, headers: {}, text: JSON.stringify(json), json });
    expect(verdicts?.search_access).toMatch(/outside the caller's projects/);
    expect(verdicts).toHaveProperty("search_order");
  });

  it("sends queries at the edges of the query rules: every refusal, and 8 terms allowed, within 256 characters", () => {
    const words = ["proj-alpha", "a-very-long-identifier-that-is-left-out-of-queries"];
    const outcomes = fc.sample(queryRuleQueries(words, ["cluster", "project"]), { seed, numRuns: 200 }).map((q) => {
      expect(q.length).toBeLessThanOrEqual(256);
      expect(q).not.toContain("a-very-long");
      const outcome = queryOutcome(q);
      return outcome && "refused" in outcome ? outcome.refused[0]?.reason : "accepted";
    });
    expect(new Set(outcomes)).toEqual(
      new Set(["too-many-terms", "accepted", "terms-required", "type-repeated", "type-unknown"]),
    );
  });
});

describe("createGenerators for an operation without rules of its own", () => {
  const copy = structuredClone(spec);
  const project = { $ref: "#/components/parameters/ProjectId" };
  const thing = {
    name: "thingId",
    in: "path",
    required: true,
    schema: { $ref: "#/components/schemas/ResourceId" },
    example: "thing-1",
  };
  const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
  copy.paths["/v1/projects/{projectId}/things/{thingId}"] = {
    get: { operationId: "getThing", parameters: [project, thing], responses: ok },
    delete: { operationId: "deleteThing", parameters: [project, thing], responses: { "204": { description: "gone" } } },
  };
  const access = { projects: new Set(["proj-beta"]), billingAccounts: new Set<string>(), complete: true };
  const given = {
    requests: createRequestArbitraries(copy),
    contract: compileContract({ spec: copy }),
    operationIds: ["getThing", "deleteThing"],
    access,
  };
  const paths = (more: Partial<GeneratorOptions>, name: string) =>
    casesOf({ ...given, ...more }, name, 100).map((c) => c.request.path);

  it("reads get valid requests in every run, writes only with writes", () => {
    expect(createGenerators({ ...options, ...given }).map((g) => g.name)).toEqual([
      "valid getThing",
      "broken getThing",
      "no usable key getThing",
      "broken deleteThing",
      "no usable key deleteThing",
    ]);
    expect(createGenerators({ ...options, ...given, writes }).map((g) => g.name)).toContain("valid deleteThing");
  });

  it("a read carries the projects the key sees and the spec's examples, mostly", () => {
    // 1,000 cases of a new seed each run: about 23% go to proj-beta, 52% to proj-alpha and 38% to thing-1, and each
    // bound is 5 standard deviations or more below that (with 100 cases, 300 seeds gave as few as 13 and 24, below
    // the bounds of 15 and 25 then).
    const sent = casesOf(given, "valid getThing", 1000).map((c) => c.request.path);
    expect(sent.filter((p) => p.startsWith("/v1/projects/proj-beta/")).length).toBeGreaterThan(150);
    expect(sent.filter((p) => p.startsWith("/v1/projects/proj-alpha/")).length).toBeGreaterThan(400);
    expect(sent.filter((p) => p.endsWith("/things/thing-1")).length).toBeGreaterThan(300);
  });

  it("a write names the project of the writes, and never the spec's example of its other ids", () => {
    const sent = paths({ writes }, "valid deleteThing");
    expect(sent.filter((p) => p.startsWith("/v1/projects/proj-alpha/")).length).toBeGreaterThan(50);
    expect(sent.filter((p) => p.startsWith("/v1/projects/proj-beta/"))).toEqual([]);
    expect(sent.filter((p) => p.endsWith("/thing-1"))).toEqual([]);
  });
});
