import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leafMutators } from "../src/leaf-mutators.js";
import type { MutantOptions } from "../src/mutant-values.js";
import { createSchemaArbitraries } from "../src/schema-arbitrary.js";
import { nodeAt } from "../src/schema-node.js";
import { documentWith, seed } from "./support.js";

const pointer = "#/components/schemas/Case";

describe("leafMutators", () => {
  it.each<
    [
      string,
      { given: { schema: Record<string, unknown>; carrier: NonNullable<MutantOptions["carrier"]> }; want: string[] },
    ]
  >([
    [
      "a string in a body: its type, pattern and both lengths",
      {
        given: { schema: { type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 4 }, carrier: "json" },
        want: ["type", "pattern", "minLength", "maxLength"],
      },
    ],
    [
      "the same string in a query: no type, since only text travels there",
      {
        given: { schema: { type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 4 }, carrier: "query" },
        want: ["pattern", "minLength", "maxLength"],
      },
    ],
    [
      "a path segment is never empty (that would be another route): no minLength of 1",
      { given: { schema: { type: "string", minLength: 1 }, carrier: "path" }, want: [] },
    ],
    [
      "an integer: its type and bounds",
      {
        given: { schema: { type: "integer", minimum: 1, maximum: 9 }, carrier: "json" },
        want: ["type", "minimum", "maximum"],
      },
    ],
    [
      "words of an enum, and a value it excludes",
      {
        given: { schema: { type: "string", enum: ["ON", "OFF"], not: { const: "OFF" } }, carrier: "json" },
        want: ["type", "enum", "not"],
      },
    ],
    [
      "an array's bounds",
      {
        given: { schema: { type: "array", items: { type: "boolean" }, minItems: 1, maxItems: 3 }, carrier: "json" },
        want: ["type", "maxItems", "minItems"],
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const document = documentWith({ Case: given.schema });
    const arbitraries = createSchemaArbitraries(document);
    const nodes = [nodeAt(document, pointer)];
    const options = { carrier: given.carrier };
    const mutators = leafMutators(
      arbitraries,
      options,
      arbitraries.flatten(nodes),
      arbitraries.forNodes(nodes, []),
      [],
    );
    expect(mutators.map(([keyword]) => keyword)).toEqual(want);
    for (const [keyword, values] of mutators) {
      for (const value of fc.sample(values, { numRuns: 20, seed })) {
        const errors = arbitraries.validator.validate(pointer, value).map((e) => e.keyword);
        expect(errors, `${keyword}: ${JSON.stringify(value)}`).toContain(keyword);
      }
    }
  });

  it("gives the near misses of a pattern, each refused by it", () => {
    const document = documentWith({ Case: { type: "string", pattern: "^[0-9]+$" } });
    const arbitraries = createSchemaArbitraries(document);
    const nodes = [nodeAt(document, pointer)];
    const [, , misses = []] =
      leafMutators(arbitraries, {}, arbitraries.flatten(nodes), arbitraries.forNodes(nodes, []), []).find(
        ([keyword]) => keyword === "pattern",
      ) ?? [];
    expect(misses.length).toBeGreaterThan(0);
    for (const miss of misses) expect(miss).not.toMatch(/^[0-9]+$/);
  });
});
