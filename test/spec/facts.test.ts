/**
 * The facts module of @compute-api/spec is the document's: each fact is read from its place in the bundle, a
 * secret is found wherever a success answer's schema holds it, and a document without a fact's place, or with an
 * `x-references` to no schema, fails the build naming it.
 */
import { readFileSync } from "node:fs";
import * as module from "@compute-api/spec/facts";
import { describe, expect, it } from "vitest";
import { facts } from "../../packages/spec/scripts/facts.mjs";

// biome-ignore lint/suspicious/noExplicitAny: the bundle, changed in place by path in these tests
type Doc = Record<string, any>;
const bundle = (): Doc => JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
const factOf = (doc: Doc, name: string) => facts(doc).find((f) => f.name === name)?.value;

describe("the facts of @compute-api/spec", () => {
  it("are those the committed bundle states", () => {
    const fromBundle = Object.fromEntries(facts(bundle()).map((f) => [f.name, f.value]));
    expect({ ...module }).toEqual(fromBundle);
  });

  it("state what the document says, where it says it", () => {
    const doc = bundle();
    const schemas = doc.components.schemas;
    expect(module.enums.VmState).toEqual(schemas.VmState.enum);
    expect(module.searchResourceTypes).toEqual(Object.keys(schemas.SearchResult.discriminator.mapping));
    expect(module.maxSearchResults).toBe(schemas.SearchResourcesResponse.properties.results.maxItems);
    expect(module.maxDecimalLength).toBe(schemas.Decimal.properties.value.maxLength);
    expect(module.maxRequestBodyBytes).toBe(doc["x-max-request-body-bytes"]);
    expect(module.searchTerms).toEqual(doc.components.parameters.SearchQuery.schema["x-search-terms"]);
    expect(module.secretResponses).toEqual({ createApiKey: ["key"] });
    expect(module.references).toEqual([
      {
        pointer: "#/components/schemas/UpdateClusterMachineRequest/properties/volumeIds/items",
        resource: "Volume",
      },
    ]);
  });

  it("find a secret in a branch of a success answer's schema, and follow a change of the document", () => {
    const doc = bundle();
    const schemas = doc.components.schemas;
    schemas.Cluster.properties.token = { type: "string", "x-secret": true, description: "A secret." };
    schemas.VmState.enum.push("HIBERNATING");
    schemas.SearchResourcesResponse.properties.results.maxItems = 50;
    expect(factOf(doc, "secretResponses")).toEqual({
      createApiKey: ["key"],
      searchResources: ["results[].cluster.token"],
    });
    expect((factOf(doc, "enums") as Record<string, string[]>).VmState).toContain("HIBERNATING");
    expect(factOf(doc, "maxSearchResults")).toBe(50);
  });

  it("fail naming the place a document lacks", () => {
    const doc = bundle();
    delete doc.components.parameters.SearchQuery.schema["x-search-terms"];
    expect(() => facts(doc)).toThrow("the document has no #/components/parameters/SearchQuery/schema/x-search-terms");
    const other = bundle();
    other.components.schemas.UpdateClusterMachineRequest.properties.volumeIds.items["x-references"] = "Volum";
    expect(() => facts(other)).toThrow(/volumeIds\/items: x-references names no schema Volum/);
  });
});
