import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { boundedSchemas } from "../src/bounded-schemas.js";
import { maxFieldViolations } from "../src/field-violations.js";

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const list = { type: "array", maxItems: 2, uniqueItems: true, items: { type: "string", pattern: "^a" } };
const closed = { type: "object", required: ["a"], properties: { a: { type: "string" } }, additionalProperties: false };

/** The validity and the keywords of the errors of each value, against a schema. */
const outcomes = (schema: object, values: unknown[]) => {
  const validate = ajv.compile(schema);
  return values.map((v) =>
    validate(v)
      ? "valid"
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).filter((k) => !k.endsWith(" if")),
  );
};

describe("boundedSchemas", () => {
  it("checks the items of a schema with maxItems only within it", () => {
    expect(boundedSchemas(list)).toEqual({
      type: "array",
      maxItems: 2,
      if: { maxItems: 2 },
      then: { uniqueItems: true, items: { type: "string", pattern: "^a" } },
    });
  });

  it("accepts exactly what the schema accepts, and past maxItems reports maxItems alone", () => {
    const values = [
      [],
      ["a"],
      ["a", "ab"],
      ["a", "a"],
      ["b"],
      ["a", "b", "c"],
      Array.from({ length: 100_000 }, () => "b"),
      "a",
      {},
    ];
    const bounded = outcomes(boundedSchemas(list), values);
    const original = outcomes(list, values);
    expect(bounded.map((o) => o === "valid")).toEqual(original.map((o) => o === "valid"));
    // Within the bound, the same errors; past it, maxItems alone.
    expect(bounded.slice(0, 5)).toEqual(original.slice(0, 5));
    expect(bounded.slice(3)).toEqual([
      [" uniqueItems"],
      ["/0 pattern"],
      [" maxItems"],
      [" maxItems"],
      [" type"],
      [" type"],
    ]);
  });

  it("bounds the unknown names of a closed object at its properties plus maxFieldViolations, naming every one up to there", () => {
    const bounded = boundedSchemas(closed);
    expect(bounded).toEqual({
      type: "object",
      required: ["a"],
      properties: { a: { type: "string" } },
      maxProperties: 1 + maxFieldViolations,
      if: { maxProperties: 1 + maxFieldViolations },
      then: { properties: { a: true }, additionalProperties: false },
    });
    const many = (n: number) => Object.fromEntries([["a", "x"], ...Array.from({ length: n }, (_, i) => [`k${i}`, 1])]);
    const values = [
      { a: "x" },
      { a: 1 },
      {},
      { a: "x", b: 1 },
      many(maxFieldViolations),
      many(maxFieldViolations + 1),
      many(100_000),
    ];
    const outcome = outcomes(bounded, values);
    expect(outcome.map((o) => o === "valid")).toEqual(outcomes(closed, values).map((o) => o === "valid"));
    expect(outcome.slice(1, 4)).toEqual([["/a type"], [" required"], [" additionalProperties"]]);
    expect(outcome[4]).toHaveLength(maxFieldViolations);
    expect(outcome.slice(5)).toEqual([[" maxProperties"], [" maxProperties"]]);
  });

  it("gates the per-key keywords of a schema with maxProperties", () => {
    const map = {
      type: "object",
      maxProperties: 3,
      propertyNames: { pattern: "^k" },
      additionalProperties: { type: "integer" },
    };
    expect(boundedSchemas(map)).toEqual({
      type: "object",
      maxProperties: 3,
      if: { maxProperties: 3 },
      then: { propertyNames: { pattern: "^k" }, additionalProperties: { type: "integer" } },
    });
  });

  it("joins a schema's own `if` through allOf", () => {
    const own = { ...list, if: { minItems: 1 }, then: { minItems: 1 } };
    expect(boundedSchemas(own)).toEqual({
      type: "array",
      maxItems: 2,
      if: { minItems: 1 },
      then: { minItems: 1 },
      allOf: [{ if: { maxItems: 2 }, then: { uniqueItems: true, items: list.items } }],
    });
  });

  it("leaves alone data, schemas with unevaluated* keywords and schemas without a bound, and does not change its input", () => {
    const document = {
      components: {
        schemas: {
          List: { ...list, example: { maxItems: 1, items: {} }, enum: [{ maxItems: 1, items: {} }] },
          Open: { type: "array", items: { type: "string" } },
          Unevaluated: { type: "array", maxItems: 1, items: { type: "string" }, unevaluatedItems: false },
          // A property named after a keyword is a schema, not the keyword.
          Named: {
            type: "object",
            properties: {
              maxItems: { type: "integer" },
              items: { type: "array", maxItems: 1, items: { type: "string" } },
            },
          },
        },
      },
    };
    const before = structuredClone(document);
    const schemas = boundedSchemas(document).components.schemas as Record<string, Record<string, unknown>>;
    expect(document).toEqual(before);
    expect(schemas.List?.example).toEqual({ maxItems: 1, items: {} });
    expect(schemas.List?.enum).toEqual([{ maxItems: 1, items: {} }]);
    expect(schemas.Open).toEqual(document.components.schemas.Open);
    expect(schemas.Unevaluated).toEqual(document.components.schemas.Unevaluated);
    expect(schemas.Named?.properties).toEqual({
      maxItems: { type: "integer" },
      items: { type: "array", maxItems: 1, if: { maxItems: 1 }, then: { items: { type: "string" } } },
    });
  });
});
