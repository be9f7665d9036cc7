import { loadSpec, type OpenApiDocument, specOperations } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { type OperationShape, operationShapes, searchResourceTypes } from "../src/operation-shapes.js";

/** A document with one path item, for shape by shape cases. */
const documentWith = (template: string, item: Record<string, unknown>): OpenApiDocument => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: { [template]: item },
  components: {
    parameters: { Id: { name: "id", in: "path", required: true, schema: { type: "string" } } },
    schemas: {},
  },
});
const get = { operationId: "getThing", responses: { "200": { description: "ok" } } };

describe("operationShapes", () => {
  it.each<[string, { given: OpenApiDocument; want: Record<string, Partial<OperationShape>> }]>([
    [
      "a path item's summary, description and servers are not operations",
      {
        given: documentWith("/things", {
          summary: "Things",
          description: "All the things",
          servers: [{ url: "https://example.com" }],
          get,
        }),
        want: { getThing: { method: "GET", template: "/things", path: [], query: [] } },
      },
    ],
    [
      "path-level parameters come first, a referenced one by the pointer of its component",
      {
        given: documentWith("/things/{id}", {
          parameters: [{ $ref: "#/components/parameters/Id" }],
          get: { ...get, parameters: [{ name: "q", in: "query", schema: { type: "string" } }] },
        }),
        want: {
          getThing: {
            path: [{ name: "id", required: true, schema: "#/components/parameters/Id/schema" }],
            query: [{ name: "q", required: false, schema: "#/paths/~1things~1{id}/get/parameters/0/schema" }],
          },
        },
      },
    ],
    [
      "a JSON body by the pointer of its schema",
      {
        given: documentWith("/things", {
          post: {
            operationId: "createThing",
            requestBody: { content: { "application/json": { schema: { type: "object" } } } },
            responses: { "200": { description: "ok" } },
          },
        }),
        want: {
          createThing: {
            method: "POST",
            body: "#/paths/~1things/post/requestBody/content/application~1json/schema",
            response: "#/paths/~1things/post/responses/200/content/application~1json/schema",
          },
        },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const shapes = operationShapes(given);
    expect([...shapes.keys()]).toEqual(Object.keys(want));
    for (const [operationId, shape] of Object.entries(want)) expect(shapes.get(operationId)).toMatchObject(shape);
  });

  it("reads every operation of the bundled spec", () => {
    const shapes = operationShapes(loadSpec());
    expect([...shapes.keys()].sort()).toEqual(
      specOperations(loadSpec())
        .map((o) => o.operation.operationId)
        .sort(),
    );
    expect(shapes.get("updateClusterMachine")).toMatchObject({
      method: "PATCH",
      template: "/v1/projects/{projectId}/cluster-machines/{id}",
      path: [
        { name: "projectId", required: true },
        { name: "id", required: true },
      ],
    });
    expect(shapes.get("searchResources")?.query).toEqual([expect.objectContaining({ name: "query", required: true })]);
  });
});

describe("searchResourceTypes", () => {
  it("lists the discriminator mapping of SearchResult", () => {
    expect(searchResourceTypes(loadSpec())).toEqual(expect.arrayContaining(["cluster", "project", "billingAccount"]));
  });
});
