import { boundedSchemas, createAjv, loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { builtinFixtures } from "@compute-api/fixtures";
import { Store } from "@compute-api/stub-server/testing";
import { describe, expect, it } from "vitest";
import { discriminatedOneOfs } from "../src/discriminated-one-of.js";

const spec = boundedSchemas(loadSpec());
const rewritten = discriminatedOneOfs(spec);
type Schema = Record<string, unknown>;
const schemasOf = (doc: OpenApiDocument) => doc.components.schemas as Record<string, Schema>;

/** Every search result of the built-in data, as alice and bob see them (every resource type). */
function builtinResults(): Schema[] {
  const store = new Store(builtinFixtures());
  store.addApiKey("alice", "t", "cak_t-alice");
  store.addApiKey("bob", "t", "cak_t-bob");
  return ["cak_t-alice", "cak_t-bob"].flatMap((key) =>
    structuredClone(store.search(store.authenticate(key)!, "a") as unknown as Schema[]),
  );
}

/** Values near a valid result: another tag, no tag, a second typed object, no typed object, a broken field. */
function nearMisses(result: Schema): Schema[] {
  const type = result.resourceType as string;
  const other = type === "cluster" ? "volume" : "cluster";
  const { resourceType: _tag, ...untagged } = result;
  const { [type]: _typed, ...untyped } = result;
  return [
    { ...result, resourceType: other },
    { ...result, resourceType: "nothing" },
    { ...result, resourceType: 7 },
    untagged,
    untyped,
    { ...result, [other]: result[type] },
    { ...result, score: 101 },
    { ...result, [type]: { ...(result[type] as Schema), id: "" } },
    { ...untyped, resourceType: other, [other]: result[type] },
  ];
}

describe("discriminatedOneOfs", () => {
  it("guards each branch of SearchResult with its tag, and leaves the rest of the document as it was", () => {
    const before = schemasOf(spec).SearchResult as { oneOf: Schema[] };
    const after = schemasOf(rewritten).SearchResult as { oneOf: Schema[] };
    expect(after.oneOf[1]).toEqual({
      if: { type: "object", required: ["resourceType"], properties: { resourceType: { const: "cluster" } } },
      then: before.oneOf[1],
      else: false,
    });
    const { SearchResult: _a, ...restAfter } = schemasOf(rewritten);
    const { SearchResult: _b, ...restBefore } = schemasOf(spec);
    expect(restAfter).toEqual(restBefore);
    expect(rewritten.paths).toEqual(spec.paths);
  });

  it("accepts exactly the values the spec's oneOf accepts", () => {
    const validate = (doc: OpenApiDocument) =>
      createAjv(doc).compile({ $ref: "openapi.json#/components/schemas/SearchResult" });
    const [original, guarded] = [validate(spec), validate(rewritten)];
    const values = builtinResults().flatMap((r) => [r, ...nearMisses(r)]);
    expect(new Set(builtinResults().map((r) => r.resourceType)).size).toBe(9);
    for (const value of values) expect({ value, valid: guarded(value) }).toEqual({ value, valid: original(value) });
    for (const result of builtinResults()) expect(original(result)).toBe(true);
  });

  it("leaves a discriminated oneOf whose branches do not pin their tag as written", () => {
    const doc = structuredClone(spec);
    const cluster = schemasOf(doc).ClusterSearchResult as { properties: Schema };
    cluster.properties.resourceType = { type: "string" };
    expect(schemasOf(discriminatedOneOfs(doc)).SearchResult).toEqual(schemasOf(doc).SearchResult);
  });
});
