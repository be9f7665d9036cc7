import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";

const spec = JSON.parse(readFileSync(new URL("../../../generated/openapi.json", import.meta.url), "utf8")) as {
  components: { schemas: Record<string, unknown> };
};
const source = readFileSync(new URL("../src/types.ts", import.meta.url), "utf8");
const aliases = [...source.matchAll(/^export type (\w+) = components\["schemas"\]\["(\w+)"\];$/gm)];

describe("type exports", () => {
  test("every schema of the spec has a named alias, and every alias names a schema of the same name", () => {
    expect(aliases.map(([, alias]) => alias).sort()).toEqual(Object.keys(spec.components.schemas).sort());
    for (const [, alias, schema] of aliases) expect(alias).toBe(schema);
  });
});
