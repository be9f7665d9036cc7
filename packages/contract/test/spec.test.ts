import { describe, expect, it } from "vitest";
import { loadSpec, type OpenApiDocument, specOperations } from "../src/spec.js";

describe("specOperations", () => {
  it("lists every operation of the bundled spec", () => {
    expect(
      specOperations(loadSpec())
        .map((o) => `${o.method} ${o.operation.operationId}`)
        .sort(),
    ).toEqual(["get searchResources", "patch updateClusterMachine", "post createApiKey"]);
  });

  it("reads only HTTP methods of a path item, and merges its parameters, dereferenced", () => {
    const spec = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/x/{id}": {
          summary: "not an operation",
          description: "not one either",
          servers: [{ url: "https://example.com" }],
          parameters: [{ $ref: "#/components/parameters/Id" }],
          get: { operationId: "getX", parameters: [{ name: "q", in: "query" }] },
          "x-extension": { operationId: "no" },
        },
      },
      components: { parameters: { Id: { name: "id", in: "path" } } },
    } as OpenApiDocument;
    expect(specOperations(spec)).toEqual([
      {
        path: "/x/{id}",
        method: "get",
        operation: spec.paths["/x/{id}"]?.get,
        parameters: [
          { name: "id", in: "path" },
          { name: "q", in: "query" },
        ],
        success: { status: 200, media: undefined },
      },
    ]);
  });
});
