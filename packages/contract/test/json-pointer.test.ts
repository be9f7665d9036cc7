import { describe, expect, it } from "vitest";
import { deref, pointerToken, resolvePointer } from "../src/json-pointer.js";

const document = { paths: { "/v1/a~b": { get: { ok: 1 } } }, components: { schemas: { X: { type: "string" } } } };

describe("pointerToken", () => {
  it.each<[string, { given: string; want: string }]>([
    ["a plain token", { given: "schemas", want: "schemas" }],
    ["a path, its slashes escaped", { given: "/v1/a", want: "~1v1~1a" }],
    ["a tilde, escaped first", { given: "a~/b", want: "a~0~1b" }],
  ])("%s", (_name, { given, want }) => {
    expect(pointerToken(given)).toBe(want);
  });
});

describe("resolvePointer", () => {
  it.each<[string, { given: string; want: unknown }]>([
    ["a component", { given: "#/components/schemas/X", want: { type: "string" } }],
    ["an escaped token", { given: `#/paths/${pointerToken("/v1/a~b")}/get`, want: { ok: 1 } }],
    ["a percent-encoded token", { given: "#/paths/~1v1~1a~0b/get/ok", want: 1 }],
    ["the whole document", { given: "#", want: document }],
  ])("%s", (_name, { given, want }) => {
    expect(resolvePointer(document, given)).toEqual(want);
  });

  it.each([
    ["a pointer to nothing", "#/components/schemas/Y", /nothing at/],
    ["a reference to another document", "other.json#/x", /only local references/],
  ])("throws on %s", (_name, pointer, message) => {
    expect(() => resolvePointer(document, pointer)).toThrow(message);
  });
});

describe("deref", () => {
  it("follows a $ref, and returns a value without one as it is", () => {
    expect(deref(document, { $ref: "#/components/schemas/X" })).toEqual({ type: "string" });
    const plain = { type: "number" };
    expect(deref(document, plain)).toBe(plain);
  });
});
