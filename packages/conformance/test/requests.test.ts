import { loadSpec } from "@compute-api/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RawRequest } from "../src/http.js";
import type { OperationShape } from "../src/operation-shapes.js";
import { createRequestArbitraries, fieldOf, type RequestInput, toRawRequest } from "../src/requests.js";
import { seed } from "./support.js";

const spec = loadSpec();
const requests = createRequestArbitraries(spec);

const patch: OperationShape = {
  operationId: "updateClusterMachine",
  method: "PATCH",
  template: "/v1/projects/{projectId}/cluster-machines/{id}",
  path: [],
  query: [],
  header: [],
  response: "",
};
const search: OperationShape = {
  ...patch,
  operationId: "searchResources",
  method: "GET",
  template: "/v1/resources/search",
};

describe("toRawRequest", () => {
  it.each<[string, { given: { shape: OperationShape; input: RequestInput }; want: RawRequest }]>([
    [
      "path parameters percent-encoded into the template, the body as JSON",
      {
        given: {
          shape: patch,
          input: { path: { projectId: "p 1", id: "a/b" }, query: [], body: { powerState: "ON" } },
        },
        want: {
          method: "PATCH",
          path: "/v1/projects/p%201/cluster-machines/a%2Fb",
          headers: { authorization: "Bearer k", "content-type": "application/json" },
          body: '{"powerState":"ON"}',
        },
      },
    ],
    [
      "the query in order, names and values percent-encoded, and no Content-Type without a body",
      {
        given: {
          shape: search,
          input: {
            path: {},
            query: [
              ["query", "a type:cluster"],
              ["x&y", "1=2"],
            ],
          },
        },
        want: {
          method: "GET",
          path: "/v1/resources/search?query=a%20type%3Acluster&x%26y=1%3D2",
          headers: { authorization: "Bearer k" },
        },
      },
    ],
    [
      "no question mark without a query",
      {
        given: { shape: search, input: { path: {}, query: [] } },
        want: { method: "GET", path: "/v1/resources/search", headers: { authorization: "Bearer k" } },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(toRawRequest(given.shape, given.input, "k")).toEqual(want);
  });
});

describe("fieldOf", () => {
  it.each<[string, { given: (string | number)[]; want: string }]>([
    ["the body itself", { given: [], want: "" }],
    ["a property", { given: ["apikeyId"], want: "apikeyId" }],
    ["nested properties", { given: ["priceHr", "value"], want: "priceHr.value" }],
    ["an array item", { given: ["volumeIds", 2], want: "volumeIds[2]" }],
    ["a property of an item", { given: ["a", 0, "b"], want: "a[0].b" }],
  ])("%s", (_name, { given, want }) => {
    expect(fieldOf(given)).toBe(want);
  });
});

describe("createRequestArbitraries", () => {
  it.each(["searchResources", "updateClusterMachine", "createApiKey"])(
    "%s: every valid request has its parameters and body valid against their schemas",
    (operationId) => {
      const shape = requests.shapeOf(operationId);
      const { validator } = requests.arbitraries;
      for (const input of fc.sample(requests.valid(operationId), { numRuns: 30, seed })) {
        for (const p of shape.path) expect(validator.validate(p.schema, input.path[p.name])).toEqual([]);
        for (const [name, value] of input.query) {
          const p = shape.query.find((q) => q.name === name);
          expect(p, `undeclared ${name}`).toBeDefined();
          expect(validator.validate(p!.schema, value)).toEqual([]);
        }
        for (const p of shape.query.filter((q) => q.required)) expect(input.query.map(([k]) => k)).toContain(p.name);
        if (shape.body) expect(validator.validate(shape.body, input.body)).toEqual([]);
        else expect(input).not.toHaveProperty("body");
      }
    },
  );

  it("mixes in biased values, 3 to 1", () => {
    const biased = requests.valid("updateClusterMachine", { path: { id: fc.constant("cm-alpha-01") } });
    const ids = fc.sample(biased, { numRuns: 200, seed }).map((input) => input.path.id);
    expect(ids.filter((id) => id === "cm-alpha-01").length).toBeGreaterThan(100);
    expect(ids.some((id) => id !== "cm-alpha-01")).toBe(true);
  });

  it.each<[string, { given: string; want: string[] }]>([
    [
      "searchResources",
      { given: "searchResources", want: ["query query required", "query (unknown parameter)", "query query pattern"] },
    ],
    [
      "updateClusterMachine",
      {
        given: "updateClusterMachine",
        want: [
          "path projectId pattern",
          "path id maxLength",
          "query (unknown parameter)",
          "body priceHr.value pattern",
        ],
      },
    ],
    ["createApiKey", { given: "createApiKey", want: ["body (root) additionalProperties", "body apikeyId required"] }],
  ])("%s: a site for every constraint of the request, each named by where it is", (_name, { given, want }) => {
    expect(requests.mutants(given).map((s) => s.site)).toEqual(expect.arrayContaining(want));
  });

  it("puts each mutant in an otherwise valid request, naming the field the 400 must name", () => {
    const sites = requests.mutants("updateClusterMachine");
    for (const site of sites) {
      for (const m of fc.sample(site.arbitrary, { numRuns: 5, seed })) {
        expect(m.site).toBe(site.site);
        if (site.site.startsWith("path ")) expect(m.field).toBe(site.site.split(" ")[1]);
        if (site.site === "body priceHr.value pattern") expect(m.field).toBe("priceHr.value");
      }
    }
  });

  it("throws on an operation the spec does not have", () => {
    expect(() => requests.valid("deleteEverything")).toThrow(/no operation deleteEverything in the spec/);
  });
});
