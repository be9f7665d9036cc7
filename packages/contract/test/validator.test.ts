import { describe, expect, it } from "vitest";
import { bearerToken, createContractValidator } from "../src/validator.js";
import { loadSpec, type OpenApiDocument } from "../src/spec.js";

describe("warmUp", () => {
  it("compiles every operation of the bundled spec", async () => {
    await expect(createContractValidator().warmUp()).resolves.toBeUndefined();
  });

  it("fails with a message naming the operation when the spec does not compile", async () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument;
    const schemas = spec.components["schemas"] as Record<string, { pattern?: string }>;
    schemas["ResourceId"] = { ...schemas["ResourceId"], pattern: "([unclosed" };
    await expect(createContractValidator({ spec }).warmUp()).rejects.toThrow(/does not work with the validator:[\s\S]*PATCH \/v1\/projects/);
  });
});

describe("bearerToken", () => {
  it.each([
    ["Bearer abc-123_x.y~z", "abc-123_x.y~z"],
    ["bearer abc", "abc"],
    ["Bearer ", undefined],
    ["Bearer a b", undefined],
    ["Basic abc", undefined],
    [undefined, undefined],
  ])("%j → %j", (header, want) => {
    expect(bearerToken({ headers: { authorization: header } })).toBe(want);
  });
});
