import { execFile } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("package", () => {
  test.each(sourceFiles(join(packageDir, "src")).map((file) => [relative(packageDir, file), file]))(
    "%s imports only openapi-fetch, @compute-api/decimal and its own files, and logs nothing",
    (_, file) => {
      const text = readFileSync(file, "utf8");
      const imported = [...text.matchAll(/^(?:import|export)\b[^;]*?from "([^"]+)";/gms)].map(
        ([, specifier]) => specifier,
      );
      for (const specifier of imported)
        expect(specifier).toMatch(/^(openapi-fetch|@compute-api\/decimal|\.\.?\/.+\.js)$/);
      expect(text).not.toMatch(/\bconsole\.|\bprocess\.|\bBuffer\b|\brequire\(/);
    },
  );

  test("openapi-fetch and @compute-api/decimal are its only runtime dependencies", () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(["@compute-api/decimal", "openapi-fetch"]);
    expect(manifest.peerDependencies).toBeUndefined();
  });

  describe("packed and installed alone in a consumer project", () => {
    const scratch = mkdtempSync(join(tmpdir(), "compute-api-client-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    test("ships the generated types and gives a consumer full types and a working client", {
      timeout: 360_000,
    }, async () => {
      // Build into a copy of the package, so the shared dist/ of the working tree is never touched.
      const staged = join(scratch, "package");
      mkdirSync(staged);
      cpSync(join(packageDir, "package.json"), join(staged, "package.json"));
      cpSync(join(packageDir, "src"), join(staged, "src"), { recursive: true });
      await run(process.execPath, [join(packageDir, "scripts/build.mjs"), join(staged, "dist")]);
      const [packed] = JSON.parse(
        (await run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: staged })).stdout,
      ) as {
        filename: string;
        files: { path: string }[];
      }[];
      const files = packed?.files.map((file) => file.path) ?? [];
      expect(files).toContain("dist/schema.d.ts");
      expect(files).toContain("dist/index.d.ts");
      expect(files).not.toContain("src/schema.d.ts");

      // The consumer: the tarball unpacked as npm would install it, plus its dependencies, openapi-fetch and
      // @compute-api/decimal (the workspace's, built).
      const consumer = join(scratch, "consumer");
      const installed = join(consumer, "node_modules/@compute-api/client");
      mkdirSync(installed, { recursive: true });
      await run("tar", ["-xzf", join(scratch, packed?.filename ?? ""), "-C", installed, "--strip-components=1"]);
      symlinkSync(
        dirname(realpathSync(require.resolve("openapi-fetch/package.json"))),
        join(consumer, "node_modules/openapi-fetch"),
      );
      symlinkSync(
        dirname(realpathSync(require.resolve("@compute-api/decimal/package.json"))),
        join(consumer, "node_modules/@compute-api/decimal"),
      );
      writeFileSync(
        join(consumer, "package.json"),
        JSON.stringify({ name: "consumer", private: true, type: "module" }),
      );
      writeFileSync(
        join(consumer, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            module: "NodeNext",
            target: "ES2022",
            lib: ["ES2023", "DOM"],
            types: [],
            strict: true,
            noEmit: true,
          },
          files: ["consumer.ts"],
        }),
      );
      cpSync(fileURLToPath(new URL("fixtures/consumer.ts", import.meta.url)), join(consumer, "consumer.ts"));
      cpSync(fileURLToPath(new URL("fixtures/consumer-run.mjs", import.meta.url)), join(consumer, "consumer-run.mjs"));

      const tsc = require.resolve("typescript/bin/tsc");
      const checked = await run(process.execPath, [tsc, "-p", consumer]).then(
        () => "",
        (error: { stdout: string }) => error.stdout,
      );
      expect(checked).toBe("");
      const { stdout } = await run(process.execPath, [join(consumer, "consumer-run.mjs")], { cwd: consumer });
      expect(stdout.trim()).toBe("GET https://compute.example/v1/resources/search?query=alpha Bearer packed-key");
    });
  });
});
