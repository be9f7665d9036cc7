import { loadSpec } from "@compute-api/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSchemaArbitraries } from "../src/schema-arbitrary.js";
import { nodeAt } from "../src/schema-node.js";
import { documentWith, seed } from "./support.js";

const spec = loadSpec();

const samples = <T>(arbitrary: fc.Arbitrary<T>, numRuns = 100): T[] => fc.sample(arbitrary, { numRuns, seed });

describe("createSchemaArbitraries over the bundled spec", () => {
  const arbitraries = createSchemaArbitraries(spec);
  const names = Object.keys(spec.components.schemas ?? {});

  it.each(names)("%s: every value is valid (Ajv), as a response", (name) => {
    const pointer = `#/components/schemas/${name}`;
    for (const value of samples(arbitraries.forPointer(pointer, { direction: "response" }), 50)) {
      expect(arbitraries.validator.validate(pointer, value), JSON.stringify(value).slice(0, 300)).toEqual([]);
    }
  });

  it.each(["UpdateClusterMachineRequest", "CreateApiKeyRequest", "ResourceId"])(
    "%s: every value is valid, as a request",
    (name) => {
      const pointer = `#/components/schemas/${name}`;
      for (const value of samples(arbitraries.forPointer(pointer)))
        expect(arbitraries.validator.validate(pointer, value)).toEqual([]);
    },
  );

  it("reaches every branch of a oneOf (SearchResult) and every value of an enum", () => {
    const results = samples(
      arbitraries.forPointer("#/components/schemas/SearchResult", { direction: "response" }),
      300,
    ) as { resourceType: string }[];
    expect(new Set(results.map((r) => r.resourceType)).size).toBe(9);
    const states = samples(arbitraries.forPointer("#/components/schemas/ClusterMachineState"), 200);
    expect(new Set(states).size).toBe(5);
  });
});

describe("createSchemaArbitraries, keyword by keyword", () => {
  // [keyword, schema, a check every value passes besides Ajv's]
  const cases: [string, Record<string, unknown>, (v: unknown) => boolean][] = [
    ["const", { const: "x" }, (v) => v === "x"],
    ["enum", { enum: ["a", "b", 3] }, (v) => ["a", "b", 3].includes(v as string)],
    ["type list", { type: ["string", "null"] }, (v) => v === null || typeof v === "string"],
    [
      "pattern with length",
      { type: "string", pattern: "^[a-z]+$", minLength: 3, maxLength: 5 },
      (v) => /^[a-z]{3,5}$/.test(v as string),
    ],
    [
      "length without pattern (code points)",
      { type: "string", minLength: 2, maxLength: 4 },
      (v) => [...(v as string)].length >= 2 && [...(v as string)].length <= 4,
    ],
    ["date-time", { type: "string", format: "date-time" }, (v) => !Number.isNaN(Date.parse(v as string))],
    [
      "integer bounds and int32",
      { type: "integer", format: "int32", minimum: -3, exclusiveMaximum: 10 },
      (v) => Number.isInteger(v) && (v as number) >= -3 && (v as number) < 10,
    ],
    [
      "number bounds",
      { type: "number", exclusiveMinimum: 0, maximum: 1 },
      (v) => (v as number) > 0 && (v as number) <= 1,
    ],
    [
      "required, properties, additionalProperties: false",
      {
        type: "object",
        required: ["a"],
        additionalProperties: false,
        properties: { a: { type: "boolean" }, b: { type: "null" } },
      },
      (v) => "a" in (v as object) && Object.keys(v as object).every((k) => k === "a" || k === "b"),
    ],
    [
      "additionalProperties as a schema",
      { type: "object", additionalProperties: { type: "integer" } },
      (v) => Object.values(v as object).every(Number.isInteger),
    ],
    [
      "minProperties",
      { type: "object", minProperties: 1, properties: { a: { type: "string" }, b: { type: "string" } } },
      (v) => Object.keys(v as object).length >= 1,
    ],
    [
      "items, maxItems, uniqueItems",
      { type: "array", maxItems: 3, uniqueItems: true, items: { enum: [1, 2, 3, 4] } },
      (v) => (v as unknown[]).length <= 3 && new Set(v as unknown[]).size === (v as unknown[]).length,
    ],
    ["minItems", { type: "array", minItems: 2, items: { type: "boolean" } }, (v) => (v as unknown[]).length >= 2],
    ["not const", { type: "string", enum: ["A", "B"], not: { const: "A" } }, (v) => v === "B"],
    ["not enum", { type: "integer", minimum: 0, maximum: 3, not: { enum: [0, 1] } }, (v) => v === 2 || v === 3],
    [
      "$ref with sibling keywords",
      { $ref: "#/components/schemas/Letters", type: "string", maxLength: 2 },
      (v) => /^[a-c]{1,2}$/.test(v as string),
    ],
    [
      "allOf",
      {
        allOf: [
          { type: "object", required: ["a"], properties: { a: { const: 1 } } },
          { type: "object", required: ["b"], properties: { b: { const: 2 } } },
        ],
      },
      (v) => (v as { a: number }).a === 1 && (v as { b: number }).b === 2,
    ],
    [
      "oneOf (exactly one branch)",
      {
        oneOf: [
          { type: "integer", maximum: 5 },
          { type: "integer", minimum: 3 },
        ],
      },
      (v) => Number.isInteger(v) && ((v as number) < 3 || (v as number) > 5),
    ],
    [
      "anyOf",
      { anyOf: [{ type: "string", maxLength: 1 }, { type: "boolean" }] },
      (v) => typeof v === "boolean" || [...(v as string)].length <= 1,
    ],
    [
      "false property and readOnly left out of requests",
      { type: "object", properties: { gone: false, id: { type: "string", readOnly: true }, x: { type: "string" } } },
      (v) => !("gone" in (v as object)) && !("id" in (v as object)),
    ],
  ];

  it.each(cases)("%s", (_name, schema, check) => {
    const document = documentWith({ Letters: { type: "string", pattern: "^[a-c]+$" }, Case: schema });
    const arbitraries = createSchemaArbitraries(document);
    for (const value of samples(arbitraries.forPointer("#/components/schemas/Case"))) {
      expect(arbitraries.validator.validate("#/components/schemas/Case", value), JSON.stringify(value)).toEqual([]);
      expect(check(value), JSON.stringify(value)).toBe(true);
    }
  });

  it("leaves writeOnly properties out of responses", () => {
    const arbitraries = createSchemaArbitraries(
      documentWith({ Case: { type: "object", properties: { secret: { type: "string", writeOnly: true } } } }),
    );
    for (const value of samples(arbitraries.forPointer("#/components/schemas/Case", { direction: "response" })))
      expect(value).toEqual({});
  });

  it("lets an override replace the value at a path, with the schema's own arbitrary to mix in", () => {
    const arbitraries = createSchemaArbitraries(
      documentWith({
        Case: { type: "object", required: ["ids"], properties: { ids: { type: "array", items: { type: "string" } } } },
      }),
    );
    const values = samples(
      arbitraries.forPointer("#/components/schemas/Case", {
        override: (path, fallback) =>
          path.join("/") === "ids/*" ? fc.oneof(fc.constant("real"), fallback()) : undefined,
      }),
      200,
    );
    const ids = values.flatMap((v) => (v as { ids: string[] }).ids);
    expect(ids).toContain("real");
    expect(ids.some((id) => id !== "real")).toBe(true);
  });

  it.each([
    ["an unsupported keyword", { type: "array", prefixItems: [{ type: "string" }] }, /prefixItems is not supported/],
    ["an unknown keyword", { type: "string", minimumLength: 3 }, /unknown keyword minimumLength/],
    ["an unsupported format", { type: "string", format: "email" }, /format email is not supported/],
    ["a schema nothing satisfies", { not: true, allOf: [false] }, /false schema|no type is valid/],
  ])("throws on %s rather than generating wrong values", (_name, schema, message) => {
    const arbitraries = createSchemaArbitraries(documentWith({ Case: schema }));
    expect(() => samples(arbitraries.forPointer("#/components/schemas/Case"), 1)).toThrow(message);
  });

  it("follows the nodes it is given by pointer", () => {
    const arbitraries = createSchemaArbitraries(spec);
    const values = samples(arbitraries.forNodes([nodeAt(spec, "#/components/parameters/SearchQuery/schema")], []));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the spec's query excludes exactly these control characters
    for (const v of values) expect(v).toMatch(/^[^\x00-\x1F\x7F]{1,256}$/u);
  });
});
