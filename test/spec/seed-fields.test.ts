/** Every field of every table of §2 and §4 of the seed is in the bundled spec, with the seed's type. */
import { describe, expect, it } from "vitest";
import { type SeedField, seedRequests, seedResources } from "../support/seed.js";
import { allProperties, refName, type Schema, schema } from "../support/spec.js";

/** Follows a `$ref` to its component schema. */
const deref = (s: Schema): Schema => (s.$ref ? schema(refName(s) ?? "") : s);

/** Asserts that property `p` of a schema has the seed type `type`. */
function expectSeedType(p: Schema | boolean | undefined, type: string, where: string): void {
  expect(p, `${where} is missing`).toBeTypeOf("object");
  const prop = p as Schema;
  const enumMatch = /^enum(?: (\w+)|;.*`(\w+)`)/.exec(type);
  if (type === "string") {
    expect(prop.type, where).toBe("string");
    expect(prop.format, where).toBeUndefined();
  } else if (type === "integer") {
    expect([prop.type, prop.format], where).toEqual(["integer", "int32"]);
  } else if (type === "timestamp") {
    expect([prop.type, prop.format], where).toEqual(["string", "date-time"]);
  } else if (type === "Decimal") {
    // Decimal, or in a request a Decimal narrowed to non-negative values: `{ value: string }` with the grammar.
    expect(refName(prop), where).toMatch(/^(NonNegative)?Decimal$/);
    const target = deref(prop);
    expect(target.required, where).toEqual(["value"]);
    expect((target.properties?.value as Schema | undefined)?.type, where).toBe("string");
    expect((target.properties?.value as Schema | undefined)?.pattern, where).toBeTypeOf("string");
  } else if (type === "string[]") {
    expect(prop.type, where).toBe("array");
    expect(deref(prop.items ?? {}).type, where).toBe("string");
  } else if (type.startsWith("object[]")) {
    // details: each element has a string `@type`; every branch of the element schema requires it.
    expect(prop.type, where).toBe("array");
    const branches = deref(prop.items ?? {}).oneOf ?? [];
    expect(branches.length, where).toBeGreaterThan(0);
    for (const b of branches.map(deref)) {
      expect(b.required, where).toContain("@type");
      expect((b.properties?.["@type"] as Schema | undefined)?.type, where).toBe("string");
    }
  } else if (enumMatch) {
    const target = deref(prop);
    expect(target.type, where).toBe("string");
    if (enumMatch[1]) expect(refName(prop), where).toBe(enumMatch[1]);
    if (enumMatch[2]) expect(target.enum, where).toContain(enumMatch[2]);
  } else if (type.startsWith("object:")) {
    const target = deref(prop);
    for (const [, name, t] of type.matchAll(/(\w+) \((\w+)\)/g)) {
      expectSeedType(target.properties?.[name ?? ""], t ?? "", `${where}.${name}`);
    }
  } else if (/^\w+\[\]/.test(type)) {
    expect(prop.type, where).toBe("array");
    expect(refName(prop.items), where).toBe(type.slice(0, type.indexOf("[")));
  } else if (/^[A-Z]\w+$/.test(type)) {
    expect(refName(prop), where).toBe(type);
  } else {
    throw new Error(`${where}: the test does not know the seed type "${type}"`);
  }
}

const cases = Object.entries({ ...seedResources, ...seedRequests }).filter(([name]) => name !== "SearchResult");

describe("seed §2 and §4 fields are in the spec", () => {
  it("reads every table of the seed", () => {
    const counts = Object.fromEntries(
      Object.entries({ ...seedResources, ...seedRequests }).map(([k, v]) => [k, v.length]),
    );
    expect(counts).toEqual({
      ClusterMachine: 21,
      ApiKeyCreated: 3,
      ErrorBody: 3,
      SearchResult: 12,
      BillingAccount: 3,
      Project: 4,
      Cluster: 27,
      Disk: 10,
      Image: 5,
      Machine: 19,
      Network: 11,
      VirtualMachine: 12,
      Volume: 12,
      UpdateClusterMachineRequest: 4,
      CreateApiKeyRequest: 1,
    });
  });

  describe.each(cases)("%s", (name, fields: SeedField[]) => {
    it.each(fields.map((f) => [f.name, f.type]))("%s: %s", (field, type) => {
      expectSeedType(allProperties(schema(name))[field], type, `${name}.${field}`);
    });
  });

  describe("SearchResult", () => {
    const variants = (schema("SearchResult").oneOf ?? []).map((v) => schema(refName(v) ?? ""));
    const typed = seedResources.SearchResult!.filter((f) => /^[A-Z]/.test(f.type));
    const common = seedResources.SearchResult!.filter((f) => !/^[A-Z]/.test(f.type));

    it.each(common.map((f) => [f.name, f.type]))("every variant has %s: %s", (field, type) => {
      for (const v of variants) {
        const p = allProperties(v)[field];
        if (field === "resourceType") expect((p as Schema).type).toBe("string");
        else expectSeedType(p, type, `${String(v.title)}.${field}`);
      }
    });

    it.each(typed.map((f) => [f.name, f.type]))("exactly one variant carries %s: %s", (field, type) => {
      const carriers = variants.filter((v) => typeof v.properties?.[field] === "object");
      expect(carriers).toHaveLength(1);
      const carrier = carriers[0]!;
      expectSeedType(carrier.properties?.[field], type, `${String(carrier.title)}.${field}`);
      expect(carrier.required).toEqual(expect.arrayContaining(["resourceType", field]));
      expect((carrier.properties?.resourceType as Schema | undefined)?.const).toBe(field);
      for (const other of variants.filter((v) => v !== carrier)) expect(other.properties?.[field]).toBe(false);
    });

    it("discriminates on resourceType with a mapping for each typed field", () => {
      const d = schema("SearchResult").discriminator as { propertyName: string; mapping: Record<string, string> };
      expect(d.propertyName).toBe("resourceType");
      expect(Object.keys(d.mapping).sort()).toEqual(typed.map((f) => f.name).sort());
      for (const [value, ref] of Object.entries(d.mapping))
        expect(ref).toBe(`#/components/schemas/${value[0]!.toUpperCase()}${value.slice(1)}SearchResult`);
    });
  });
});
