/**
 * The READMEs describe the software as it is: each at most 300 lines, with no history in it (dates, "no longer",
 * "used to", "not met", past figures: those belong in a changeset or docs/benchmarks.md), and the facts they list
 * that could drift are the facts: the root README's required fields of each resource, the decimal package's exports,
 * the test-support package's entries.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The root README and every README.md of packages/* and examples/*. */
const readmes = [
  join(root, "README.md"),
  ...["packages", "examples"].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, parent, entry.name, "README.md"))
      .filter((file) => {
        try {
          readFileSync(file);
          return true;
        } catch {
          return false;
        }
      }),
  ),
].map((file) => ({ name: relative(root, file), text: readFileSync(file, "utf8") }));

/** Words that tell history rather than what the software does now. */
const historyWords = [
  /\bno longer\b/i,
  /\bused to\b/i,
  /\bnot met\b/i,
  /\bfirst version\b/i,
  /\bwas meant to\b/i,
  /\(before[:,]/i,
  /\bbefore the fix\b/i,
  /\bearlier machine\b/i,
  /\bthe previous\b/i,
  /\blatest (run|figures|soak|fuzz)\b/i,
];
/** A calendar date outside a URL and outside a timestamp (`2026-11-24T21:…` is a value, not a date of history). */
const date = /\b(19|20)\d\d-[01]\d-[0-3]\d\b(?!T)/;

/** Lines of `text` that match `pattern`, URLs taken out first, as `line: text`. */
function matching(text: string, pattern: RegExp): string[] {
  return text
    .split("\n")
    .map((line, index) => ({ line: index + 1, text: line.replace(/https?:\/\/\S+/g, "") }))
    .filter(({ text }) => pattern.test(text))
    .map(({ line, text }) => `${line}: ${text.trim()}`);
}

describe("the READMEs", () => {
  it("there are READMEs to check: the root's and one per package and example", () => {
    expect(readmes.map((r) => r.name)).toEqual(
      expect.arrayContaining(["README.md", "packages/stub-server/README.md", "examples/postgres/README.md"]),
    );
    expect(readmes.length).toBeGreaterThanOrEqual(15);
  });

  it.each(readmes.map((r) => [r.name, r] as const))("%s is at most 300 lines", (_name, { text }) => {
    expect(text.split("\n").length - (text.endsWith("\n") ? 1 : 0)).toBeLessThanOrEqual(300);
  });

  it.each(readmes.map((r) => [r.name, r] as const))("%s tells no history", (_name, { text }) => {
    expect(historyWords.flatMap((word) => matching(text, word))).toEqual([]);
    expect(matching(text, date)).toEqual([]);
  });

  it("the check finds what it looks for", () => {
    const old = "It used to take 88 s (first version).\nMeasured on 2026-11-25: the aim is not met.";
    expect(historyWords.flatMap((word) => matching(old, word))).toHaveLength(3);
    expect(matching(old, date)).toEqual(["2: Measured on 2026-11-25: the aim is not met."]);
    expect(matching('"createTime":"2026-11-24T21:51:41.452Z", https://x.example/2025-11-25/a', date)).toEqual([]);
  });
});

/** The rows of the first table after `<!-- marker -->` in `text`, as their cells. */
function tableAfter(text: string, marker: string): string[][] {
  const at = text.indexOf(`<!-- ${marker} -->`);
  if (at < 0) throw new Error(`no <!-- ${marker} -->`);
  const lines = text.slice(at).split("\n").slice(1);
  const start = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  // Without the header and its rule.
  return rows.slice(2);
}

/** The names in backticks of a cell. */
const names = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([^`(]+)[^`]*`/g)].map((m) => m[1] ?? "");

describe("the root README's required fields", () => {
  const spec = JSON.parse(readFileSync(join(root, "generated/openapi.json"), "utf8")) as {
    components: { schemas: Record<string, { required?: string[] }> };
  };
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const rows = tableAfter(readme, "required-fields");

  it("lists each resource of a search result", () => {
    const resources = Object.keys(spec.components.schemas)
      .filter((name) => name.endsWith("SearchResult") && name !== "SearchResult")
      .map((name) => name.replace(/SearchResult$/, ""));
    expect(rows.map(([schema]) => names(schema)[0]).sort()).toEqual([...resources, "ClusterMachine"].sort());
  });

  it.each(rows.map((row) => [names(row[0])[0] ?? "", row] as const))(
    "%s requires what the README says",
    (name, row) => {
      expect(names(row[1])).toEqual(spec.components.schemas[name]?.required);
    },
  );
});

describe("export lists", () => {
  it("the decimal README's table names every export of @compute-api/decimal at run time", async () => {
    const readme = readFileSync(join(root, "packages/decimal/README.md"), "utf8");
    const listed = tableAfter(readme, "exports").flatMap(([cell]) => names(cell));
    const exported = Object.keys(await import("@compute-api/decimal"));
    expect(listed.sort()).toEqual(exported.sort());
  });

  it("the test-support README's table names every entry of its package.json", () => {
    const readme = readFileSync(join(root, "packages/test-support/README.md"), "utf8");
    const manifest = JSON.parse(readFileSync(join(root, "packages/test-support/package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const listed = tableAfter(readme, "entries").flatMap(([cell]) => names(cell));
    const entries = Object.keys(manifest.exports).map((key) => `@compute-api/test-support${key.slice(1)}`);
    expect(listed.sort()).toEqual(entries.sort());
  });
});
