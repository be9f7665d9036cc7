/**
 * The package runs anywhere the client does: it imports only the spec's facts (constants, no imports of their own)
 * and uses no Node-only API.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

describe("package", () => {
  it.each(readdirSync(src).filter((name) => name.endsWith(".ts")))(
    "%s imports only its own files and the spec's facts, and uses no Node-only API",
    (name) => {
      const text = readFileSync(join(src, name), "utf8");
      const imported = [...text.matchAll(/^(?:import|export)\b[^;]*?from "([^"]+)";/gms)].map(([, s]) => s);
      for (const specifier of imported) expect(specifier).toMatch(/^(\.\/.+\.js|@compute-api\/spec\/facts)$/);
      expect(text).not.toMatch(/\bconsole\.|\bprocess\.|\bBuffer\b|\brequire\(/);
    },
  );

  it("depends on the spec only, which depends on nothing", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as object;
    expect(manifest).toHaveProperty("dependencies", { "@compute-api/spec": "1.0.0" });
    expect(manifest).not.toHaveProperty("peerDependencies");
    const spec = JSON.parse(readFileSync(new URL("../../spec/package.json", import.meta.url), "utf8")) as object;
    expect(spec).not.toHaveProperty("dependencies");
    expect(spec).not.toHaveProperty("peerDependencies");
  });
});
