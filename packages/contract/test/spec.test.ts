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

describe("loadSpec's errors say their cause first", () => {
  it("without Node's built-ins (a browser), says the document must be passed, not that the package is missing", () => {
    const saved = Object.getOwnPropertyDescriptor(process, "getBuiltinModule");
    // A runtime without Node's built-ins, as a browser bundle of the MSW handlers meets: the one global it reads.
    Object.defineProperty(process, "getBuiltinModule", { value: undefined, configurable: true });
    let message = "";
    try {
      loadSpec("/tmp/no-such-document-without-node.json");
    } catch (error) {
      message = (error as Error).message;
    } finally {
      if (saved) Object.defineProperty(process, "getBuiltinModule", saved);
    }
    expect(message).toMatch(/^loading the OpenAPI document needs Node; elsewhere, pass the document/);
    expect(message).not.toContain("npm install");
  });

  it("a document it cannot read: the path and the reason, then the hint", () => {
    expect(() => loadSpec("/tmp/no-such-openapi-document.json")).toThrow(
      /^cannot read the OpenAPI document at \/tmp\/no-such-openapi-document\.json: .*ENOENT.* \(is @compute-api\/spec installed\? In the repository, run npm install\)$/,
    );
  });
});
