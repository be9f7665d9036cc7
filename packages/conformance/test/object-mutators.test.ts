import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { objectMutators } from "../src/object-mutators.js";
import { createSchemaArbitraries } from "../src/schema-arbitrary.js";
import { nodeAt } from "../src/schema-node.js";
import { documentWith, seed } from "./support.js";

const pointer = "#/components/schemas/Case";
const strings = { a: { type: "string" }, b: { type: "string" } };

describe("objectMutators", () => {
  it.each<[string, { given: { schema: Record<string, unknown>; writable: string[] }; want: [string, string][] }]>([
    [
      "a required property removed",
      {
        given: { schema: { type: "object", required: ["a"], properties: strings }, writable: ["a", "b"] },
        want: [["required", "a"]],
      },
    ],
    [
      "not a required property a request cannot write (readOnly)",
      { given: { schema: { type: "object", required: ["a"], properties: strings }, writable: ["b"] }, want: [] },
    ],
    [
      "an unknown property added",
      {
        given: { schema: { type: "object", additionalProperties: false, properties: strings }, writable: ["a", "b"] },
        want: [["additionalProperties", ""]],
      },
    ],
    [
      "too few properties",
      {
        given: { schema: { type: "object", minProperties: 1, properties: strings }, writable: ["a", "b"] },
        want: [["minProperties", ""]],
      },
    ],
    [
      "an item repeated",
      {
        given: { schema: { type: "array", uniqueItems: true, minItems: 1, items: { type: "integer" } }, writable: [] },
        want: [["uniqueItems", ""]],
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const document = documentWith({ Case: given.schema });
    const arbitraries = createSchemaArbitraries(document);
    const nodes = [nodeAt(document, pointer)];
    const mutators = objectMutators(arbitraries.flatten(nodes), arbitraries.forNodes(nodes, []), given.writable);
    expect(mutators.map(([{ name, at }]) => [name, at.join(".")])).toEqual(want);
    for (const [{ name }, mutants] of mutators) {
      for (const mutant of fc.sample(mutants, { numRuns: 20, seed })) {
        expect(mutant.keyword).toBe(name);
        const errors = arbitraries.validator.validate(pointer, mutant.value).map((e) => e.keyword);
        expect(errors, `${name}: ${JSON.stringify(mutant.value)}`).toContain(name);
      }
    }
  });
});
