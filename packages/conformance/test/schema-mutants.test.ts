import type { OpenApiDocument } from "@compute-api/contract";
import { loadSpec } from "@compute-api/contract";
import type { ErrorObject } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSchemaArbitraries } from "../src/schema-arbitrary.js";
import { type MutantOptions, mutationSites } from "../src/schema-mutants.js";
import { nodeAt } from "../src/schema-node.js";
import { documentWith, seed } from "./support.js";

const spec = loadSpec();

/** Where an Ajv error points: its instance path, plus the property it names for required and additionalProperties. */
function located(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const name = params.missingProperty ?? params.additionalProperty;
  return name === undefined
    ? error.instancePath
    : `${error.instancePath}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

const pointerOf = (path: readonly (string | number)[]) =>
  path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");

/** Every mutant of every site breaks the site's keyword there, and nothing outside the site. */
function expectEachSiteBreaksOnlyItsConstraint(
  document: OpenApiDocument,
  pointer: string,
  options: MutantOptions,
  numRuns = 30,
): string[] {
  const arbitraries = createSchemaArbitraries(document);
  const sites = mutationSites(arbitraries, [nodeAt(document, pointer)], options);
  for (const site of sites) {
    for (const mutant of fc.sample(site.arbitrary, { numRuns, seed })) {
      const errors = arbitraries.validator.validate(pointer, mutant.value);
      const at = pointerOf(mutant.path);
      const what = `${site.keyword} at ${at}: ${JSON.stringify(mutant.value).slice(0, 200)} → ${JSON.stringify(errors.map((e) => [e.keyword, located(e)]))}`;
      expect(
        errors.some((e) => e.keyword === mutant.keyword && `${at}/`.startsWith(`${located(e)}/`)),
        what,
      ).toBe(true);
      // One constraint at a time: every error is about the mutated place (or, for a type change, its schema's other keywords there).
      for (const e of errors)
        expect(`${located(e)}/`.startsWith(`${at}/`) || `${at}/`.startsWith(`${located(e)}/`), what).toBe(true);
    }
  }
  return sites.map((s) => `${s.at.join(".")} ${s.keyword}`);
}

describe("mutationSites over the request schemas of the spec", () => {
  it("UpdateClusterMachineRequest: every keyword at every place, each mutant refused for it alone", () => {
    const sites = expectEachSiteBreaksOnlyItsConstraint(spec, "#/components/schemas/UpdateClusterMachineRequest", {});
    expect(sites).toEqual(
      expect.arrayContaining([
        " type",
        " additionalProperties",
        " minProperties",
        "powerState enum",
        "powerState not",
        "state not",
        "priceHr.value required",
        "priceHr additionalProperties",
        "priceHr.value pattern",
        "priceHr.value maxLength",
        "volumeIds maxItems",
        "volumeIds uniqueItems",
        "volumeIds.* pattern",
        "volumeIds.* minLength",
        "volumeIds.* maxLength",
      ]),
    );
  });

  it("CreateApiKeyRequest: required, unknown field, type, pattern and both lengths", () => {
    const sites = expectEachSiteBreaksOnlyItsConstraint(spec, "#/components/schemas/CreateApiKeyRequest", {});
    expect(sites.sort()).toEqual([
      " additionalProperties",
      " type",
      "apikeyId maxLength",
      "apikeyId minLength",
      "apikeyId pattern",
      "apikeyId required",
      "apikeyId type",
    ]);
  });

  it("a path parameter is only ever text, and never empty (that would be another route)", () => {
    const sites = expectEachSiteBreaksOnlyItsConstraint(spec, "#/components/schemas/ResourceId", { carrier: "path" });
    expect(sites.sort()).toEqual([" maxLength", " pattern"]);
  });

  it("a query parameter is only ever text, and may be empty", () => {
    const sites = expectEachSiteBreaksOnlyItsConstraint(spec, "#/components/parameters/SearchQuery/schema", {
      carrier: "query",
    });
    expect(sites.sort()).toEqual([" maxLength", " minLength", " pattern"]);
  });

  it("the near misses of the non-negative Decimal grammar include a negative price, and all are refused", () => {
    const arbitraries = createSchemaArbitraries(spec);
    const [site] = mutationSites(arbitraries, [
      nodeAt(spec, "#/components/schemas/NonNegativeDecimal/properties/value"),
    ]).filter((s) => s.keyword === "pattern");
    const values = (site?.nearMisses ?? [])
      .flatMap((a) => fc.sample(a, { numRuns: 1, seed }))
      .map((m) => m.value as string);
    expect(values.some((v) => /^-[0-9.]/.test(v))).toBe(true);
    for (const v of values)
      expect(arbitraries.validator.validate("#/components/schemas/NonNegativeDecimal/properties/value", v)).not.toEqual(
        [],
      );
  });
});

describe("mutationSites, keyword by keyword", () => {
  it.each([
    ["minimum and maximum", { type: "integer", minimum: 1, maximum: 9 }, [" maximum", " minimum", " type"]],
    ["const", { type: "string", const: "on" }, [" const", " type"]],
    [
      "minItems and items",
      { type: "array", minItems: 2, items: { type: "boolean" } },
      [" minItems", " type", "* type"],
    ],
    ["not enum", { type: "string", enum: ["A", "B", "C"], not: { enum: ["A"] } }, [" enum", " not", " type"]],
    [
      "required through allOf",
      { allOf: [{ type: "object", required: ["a"], properties: { a: { type: "string" } } }] },
      [" type", "a required", "a type"],
    ],
  ])("%s", (_name, schema, want) => {
    expect(
      expectEachSiteBreaksOnlyItsConstraint(documentWith({ Case: schema }), "#/components/schemas/Case", {}).sort(),
    ).toEqual(want);
  });
});
