/** The request constraints of the spec behave at their boundaries, through the compiled schemas (Ajv 2020). */
import { describe, expect, it } from "vitest";
import { spec, validator } from "../support/spec.js";

const valid = (pointer: string, value: unknown) => validator.validate(pointer, value).length === 0;

const decimal = "#/components/schemas/Decimal";
const nonNegative = "#/components/schemas/NonNegativeDecimal";
const createKey = "#/components/schemas/CreateApiKeyRequest";
const patch = "#/components/schemas/UpdateClusterMachineRequest";

describe("Decimal grammar", () => {
  it.each(["2.5", "-0.5", ".5", "5.", "1e10", "2.5E-3", "+1", "0", "007", "1E+2"])("accepts %j", (value) => {
    expect(valid(decimal, { value })).toBe(true);
  });
  it.each(["", ".", "1,5", "1.2.3", "e5", " 1", "1 ", "NaN", "Infinity", "-", "1e", "0x10", "1_000"])(
    "rejects %j",
    (value) => {
      expect(valid(decimal, { value })).toBe(false);
    },
  );
  it("requires value to be a string", () => {
    expect(valid(decimal, { value: 2.5 })).toBe(false);
    expect(valid(decimal, {})).toBe(false);
  });
});

describe("NonNegativeDecimal (PATCH priceHr)", () => {
  it.each(["0", "2.5", ".5", "5.", "+1", "2.5E-3", "1e-3"])("accepts %j", (value) => {
    expect(valid(nonNegative, { value })).toBe(true);
  });
  it.each(["-0.5", "-1", "-0", "", "NaN"])("rejects %j", (value) => {
    expect(valid(nonNegative, { value })).toBe(false);
  });
  it("rejects unknown fields", () => {
    expect(valid(nonNegative, { value: "1", currency: "EUR" })).toBe(false);
  });
});

describe("CreateApiKeyRequest.apikeyId", () => {
  it.each([
    ["3 characters", "abc", false],
    ["4 characters", "abcd", true],
    ["63 characters", "a".repeat(63), true],
    ["64 characters", "a".repeat(64), false],
    ["digits and hyphens", "ci-key-01", true],
    ["uppercase", "Abcd", false],
    ["underscore", "ab_cd", false],
    ["space", "ab cd", false],
    ["empty", "", false],
  ])("%s: %j → %s", (_name, apikeyId, ok) => {
    expect(valid(createKey, { apikeyId })).toBe(ok);
  });
  it("is required, and unknown fields are rejected", () => {
    expect(valid(createKey, {})).toBe(false);
    expect(valid(createKey, { apikeyId: "abcd", name: "x" })).toBe(false);
  });
});

describe("UpdateClusterMachineRequest", () => {
  it.each([
    ["an empty body", {}, false],
    ["an unknown field", { powerState: "ON", color: "red" }, false],
    ["one field", { powerState: "OFF" }, true],
    ["every field", { powerState: "ON", state: "ACTIVE", priceHr: { value: "1.5" }, volumeIds: ["vol-a"] }, true],
    ["MACHINE_POWER_STATE_UNSPECIFIED as target", { powerState: "MACHINE_POWER_STATE_UNSPECIFIED" }, false],
    ["STATE_UNSPECIFIED as target", { state: "STATE_UNSPECIFIED" }, false],
    ["an unknown enum value", { state: "RUNNING" }, false],
    ["a negative price", { priceHr: { value: "-1" } }, false],
    ["a duplicate volume id", { volumeIds: ["vol-a", "vol-a"] }, false],
    ["an empty volume list", { volumeIds: [] }, true],
    ["a volume id with a slash", { volumeIds: ["a/b"] }, false],
    ["65 volume ids", { volumeIds: Array.from({ length: 65 }, (_, i) => `vol-${i}`) }, false],
  ])("%s", (_name, body, ok) => {
    expect(valid(patch, body)).toBe(ok);
  });
});

describe("searchResources query parameter", () => {
  const param = (spec.components.parameters as Record<string, { schema: Record<string, unknown>; required: boolean }>)
    .SearchQuery!;
  it("is required with a documented upper bound", () => {
    expect(param.required).toBe(true);
    expect(param.schema.minLength).toBe(1);
    expect(param.schema.maxLength).toBe(256);
  });
  it.each([
    ["empty", "", false],
    ["one character", "a", true],
    ["256 characters", "a".repeat(256), true],
    ["257 characters", "a".repeat(257), false],
    ["a control character", "a\u0000b", false],
  ])("%s", (_name, query, ok) => {
    expect(valid("#/components/parameters/SearchQuery/schema", query)).toBe(ok);
  });
});

describe("response schemas tolerate additive change", () => {
  it("no response object forbids additional properties", () => {
    const requestOnly = new Set(["UpdateClusterMachineRequest", "CreateApiKeyRequest", "NonNegativeDecimal"]);
    for (const [name, s] of Object.entries(spec.components.schemas as Record<string, Record<string, unknown>>)) {
      if (!requestOnly.has(name)) expect(s.additionalProperties, name).not.toBe(false);
    }
  });
  it("a cluster machine with an extra field is valid", () => {
    expect(valid("#/components/schemas/ClusterMachine", { id: "cm-1", projectId: "p", rackId: "r7" })).toBe(true);
  });
  it("an error detail of an unknown type is valid, a malformed known one is not", () => {
    const body = (detail: unknown) => ({ code: 400, message: "bad", details: [detail] });
    expect(
      valid("#/components/schemas/ErrorBody", body({ "@type": "type.googleapis.com/google.rpc.Help", links: [] })),
    ).toBe(true);
    expect(
      valid("#/components/schemas/ErrorBody", body({ "@type": "type.googleapis.com/google.rpc.BadRequest" })),
    ).toBe(false);
    expect(valid("#/components/schemas/ErrorBody", body({ reason: "NO_TYPE" }))).toBe(false);
  });
  it("a search result must carry exactly its typed object", () => {
    const cluster = { id: "c", projectId: "p", dataCenterId: "d", machineTypeId: "m", machineCount: 0 };
    const result = { resourceName: "projects/p/clusters/c", resourceType: "cluster", score: 100, cluster };
    expect(valid("#/components/schemas/SearchResult", result)).toBe(true);
    expect(valid("#/components/schemas/SearchResult", { ...result, resourceType: "disk" })).toBe(false);
    expect(valid("#/components/schemas/SearchResult", { ...result, volume: { id: "v" } })).toBe(false);
    expect(valid("#/components/schemas/SearchResult", { ...result, score: 101 })).toBe(false);
  });
});
