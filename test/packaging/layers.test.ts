/**
 * The packages form layers: each depends only on packages of a lower layer, so there is no circle and no
 * dependency that climbs back up; the compiled spec (`@compute-api/contract`) carries no runtime of the commands;
 * the commands' runtime is depended on only by the commands and the server kit; and nothing on the client's side
 * of the server kit (conformance, fixtures, mcp) installs Express. Each entry's names at run time are counted (the
 * keys of its module namespace): the contract's stay at 40 or fewer, and every count a README states is the count.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
}

/** Every workspace package of packages/ and examples/, by name, with its folder. */
const workspaces = new Map(
  ["packages", "examples"].flatMap((parent) =>
    readdirSync(join(root, parent)).flatMap((folder) => {
      const dir = join(parent, folder);
      try {
        const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as Manifest;
        return [[manifest.name, { dir, manifest }] as const];
      } catch {
        return [];
      }
    }),
  ),
);

const internal = (name: string): string[] =>
  Object.keys(workspaces.get(name)?.manifest.dependencies ?? {}).filter((d) => workspaces.has(d));

/** The layers, lowest first: a package may depend on packages of lower layers only. */
const layers: readonly (readonly string[])[] = [
  ["@compute-api/spec"],
  ["@compute-api/decimal", "@compute-api/contract"],
  ["@compute-api/client", "@compute-api/rules"],
  ["@compute-api/runtime"],
  // The gateway below the stub, whose --forward is the gateway's request path (createForwarder).
  ["@compute-api/fixtures", "@compute-api/server", "@compute-api/gateway"],
  ["@compute-api/stub-server", "@compute-api/conformance", "@compute-api/mcp", "@compute-api/test-support"],
  ["@compute-api/example-postgres"],
];
const layerOf = new Map(layers.flatMap((names, layer) => names.map((name) => [name, layer] as const)));

/** Who may depend on the commands' runtime: the commands' packages, the server kit, and the suites' helpers. */
const runtimeUsers = [
  "@compute-api/server",
  "@compute-api/stub-server",
  "@compute-api/gateway",
  "@compute-api/conformance",
  "@compute-api/mcp",
  "@compute-api/example-postgres",
  "@compute-api/test-support",
];

/** A package and every workspace package it depends on, directly or not. */
function closure(name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const dependency of internal(name)) closure(dependency, seen);
  return seen;
}

describe("the packages' layers", () => {
  it("places every workspace package in a layer", () => {
    expect([...workspaces.keys()].filter((name) => !layerOf.has(name))).toEqual([]);
  });

  it.each([...workspaces.keys()])("%s depends only on packages of lower layers", (name) => {
    const layer = layerOf.get(name) ?? -1;
    const climbing = internal(name).filter((d) => (layerOf.get(d) ?? Number.POSITIVE_INFINITY) >= layer);
    expect(climbing, `${name} (layer ${layer}) depends on these of its own layer or above`).toEqual([]);
  });

  it("has no circle", () => {
    const circles: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (path.includes(name)) return void circles.push([...path.slice(path.indexOf(name)), name].join(" → "));
      for (const dependency of internal(name)) visit(dependency, [...path, name]);
    };
    for (const name of workspaces.keys()) visit(name, []);
    expect(circles).toEqual([]);
  });

  it("only the commands' packages, the server kit and test-support depend on @compute-api/runtime", () => {
    const users = [...workspaces.keys()].filter((name) => internal(name).includes("@compute-api/runtime"));
    expect(users.filter((name) => !runtimeUsers.includes(name))).toEqual([]);
  });

  it.each(["@compute-api/conformance", "@compute-api/fixtures", "@compute-api/mcp", "@compute-api/rules"])(
    "%s installs neither the server kit nor Express, directly or through a package it depends on",
    (name) => {
      const installed = closure(name);
      expect(installed.has("@compute-api/server")).toBe(false);
      const express = [...installed].filter((p) =>
        Object.keys(workspaces.get(p)?.manifest.dependencies ?? {}).some((d) => /^(express|express-.*)$/.test(d)),
      );
      expect(express).toEqual([]);
    },
  );

  it("the compiled spec depends on no tracing SDK, logger, command-line parser, CORS, body parser or framework", () => {
    const dependencies = Object.keys(workspaces.get("@compute-api/contract")?.manifest.dependencies ?? {});
    expect(dependencies.filter((d) => /^(@opentelemetry\/|pino|commander|cors|body-parser|express)/.test(d))).toEqual(
      [],
    );
    expect(Object.keys(workspaces.get("@compute-api/contract")?.manifest.exports ?? {})).toEqual([
      ".",
      "./package.json",
    ]);
  });

  it("no package's source imports a file out of its own folder (a build script, another package's source)", () => {
    const offending: string[] = [];
    for (const { dir } of workspaces.values()) {
      const src = join(root, dir, "src");
      let files: string[];
      try {
        files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => /\.(ts|mts|js|mjs)$/.test(f));
      } catch {
        continue;
      }
      for (const file of files) {
        const depth = file.split("/").length; // src/a.ts: 1, so "../" reaches the package's own folder
        for (const [, spec] of readFileSync(join(src, file), "utf8").matchAll(/(?:from|import\()\s*"(\.\.\/[^"]+)"/g)) {
          const ups = (spec ?? "").match(/\.\.\//g)?.length ?? 0;
          if (ups > depth) offending.push(`${dir}/src/${file}: ${spec}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it("the rules import no Node built-in and no web framework", () => {
    const dir = join(root, "packages/rules/src");
    const sources = readdirSync(dir).filter((f) => f.endsWith(".ts"));
    const offending = sources.filter((file) =>
      /from "(node:[^"]+|express|express-[^"]+)"/.test(readFileSync(join(dir, file), "utf8")),
    );
    expect(offending).toEqual([]);
  });
});

/** The JavaScript entries of a package: its export keys whose target is code (not JSON, YAML, HTML or types alone). */
function codeEntries(manifest: Manifest): string[] {
  return Object.entries(manifest.exports ?? {})
    .filter(([, target]) => typeof target === "object" && "default" in target && /\.js$/.test(target.default ?? ""))
    .map(([key]) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/** The number of names each published package's entries hold at run time, by entry. */
async function countNames(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { manifest } of workspaces.values()) {
    if (manifest.private) continue;
    for (const entry of codeEntries(manifest)) counts.set(entry, Object.keys(await import(entry)).length);
  }
  return counts;
}

/** The rows of the READMEs' tables with a "Names at run time" column: the entry and the count the README states. */
function statedCounts(): { readme: string; entry: string; count: number }[] {
  const rows: { readme: string; entry: string; count: number }[] = [];
  for (const { dir } of workspaces.values()) {
    let text: string;
    try {
      text = readFileSync(join(root, dir, "README.md"), "utf8");
    } catch {
      continue;
    }
    let column = -1;
    for (const line of text.split("\n")) {
      if (!line.startsWith("|")) {
        column = -1;
        continue;
      }
      const cells = line.split("|").map((cell) => cell.trim());
      const header = cells.indexOf("Names at run time");
      if (header >= 0) column = header;
      else if (column >= 0 && !/^-+$/.test(cells[1] ?? "")) {
        rows.push({
          readme: `${dir}/README.md`,
          entry: (cells[1] ?? "").replaceAll("`", ""),
          count: Number(cells[column]),
        });
      }
    }
  }
  return rows;
}

describe("the entries' names at run time", async () => {
  const counts = await countNames();
  const stated = statedCounts();

  it("@compute-api/contract holds at most 40 names at run time over its entries", () => {
    const total = [...counts]
      .filter(([entry]) => entry.startsWith("@compute-api/contract"))
      .reduce((n, [, c]) => n + c, 0);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(40);
  });

  it("the READMEs state counts of the contract's, the rules' and the runtime's entries", () => {
    const entries = [...counts.keys()].filter((e) => /^@compute-api\/(contract|rules|runtime)(\/|$)/.test(e));
    expect(entries.filter((entry) => !stated.some((row) => row.entry === entry))).toEqual([]);
  });

  it.each(stated.map((row) => [`${row.entry} in ${row.readme}`, row] as const))("%s is the count", (_name, row) => {
    expect(counts.has(row.entry), `${row.entry} is no entry of a published package`).toBe(true);
    expect(row.count).toBe(counts.get(row.entry));
  });
});
