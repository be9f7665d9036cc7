/**
 * Fails when the current spec (generated/openapi.json) breaks callers of the last released one
 * (baseline/openapi.json), unless info.version's major was raised. The diff is Optic's (`optic diff --check`,
 * its standard breaking-change rules). Two normalisations let Optic see the whole document: boolean
 * subschemas become `{ not: {} }` (Optic's parser rejects `false`), and every component schema is exposed
 * as the 200 response of a synthetic GET operation, because Optic diffs operations and does not look inside
 * `oneOf` branches such as the search result variants. Optic itself excuses breaking changes when the major
 * version rises; the versions are hidden from it so that it always lists them and this script applies the rule.
 *
 * Usage: tsx scripts/check-breaking.ts [--current FILE] [--baseline FILE]
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { generatedDir, root, runTool } from "./tools.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Document = {
  info: { version: string };
  paths: Record<string, Json>;
  components: { schemas: Record<string, Json> };
};

/** Replaces boolean subschemas by their object form; `additionalProperties: false` keeps its meaning either way. */
function withoutBooleanSchemas(value: Json, key = ""): Json {
  if (value === false && key !== "additionalProperties") return { not: {} };
  if (Array.isArray(value)) return value.map((v) => withoutBooleanSchemas(v));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutBooleanSchemas(v, k)]));
  }
  return value;
}

/** The document as Optic should see it: normalised, with one synthetic operation per component schema. */
export function forOptic(doc: Document): Document {
  const out = withoutBooleanSchemas(structuredClone(doc) as unknown as Json) as unknown as Document;
  out.info.version = "0.0.0";
  for (const name of Object.keys(out.components.schemas).sort()) {
    out.paths[`/__schemas/${name}`] = {
      get: {
        operationId: `schema${name}`,
        summary: `Schema ${name} (synthetic, for the breaking-change check only)`,
        responses: {
          "200": {
            description: name,
            content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
          },
        },
      },
    };
  }
  return out;
}

const major = (version: string): number => Number(version.split(".")[0]);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      current: { type: "string", default: path.join(generatedDir, "openapi.json") },
      baseline: { type: "string", default: path.join(root, "baseline", "openapi.json") },
    },
  });
  const current = JSON.parse(await readFile(values.current, "utf8")) as Document;
  const baseline = JSON.parse(await readFile(values.baseline, "utf8")) as Document;
  const from = baseline.info.version;
  const to = current.info.version;

  const tmp = await mkdtemp(path.join(tmpdir(), "compute-api-breaking-"));
  try {
    const a = path.join(tmp, `released-${from}.json`);
    const b = path.join(tmp, `current-${to}.json`);
    await writeFile(a, JSON.stringify(forOptic(baseline), null, 2));
    await writeFile(b, JSON.stringify(forOptic(current), null, 2));
    const result = await runTool("optic", ["diff", a, b, "--check"]);
    const report = (result.stdout + result.stderr).replaceAll(tmp + path.sep, "").trim();
    const breaking = report
      .split("\n")
      .filter((l) => /This is a breaking change/.test(l))
      .map((l) => l.trim().replace(/^x\s*/, ""));
    if (result.code !== 0 && breaking.length === 0) {
      console.error(`the breaking-change check could not run (optic exit ${result.code}):\n${report}`);
      return 2;
    }
    if (breaking.length === 0) {
      console.log(`no breaking change against the released spec ${from} (current ${to}).`);
      return 0;
    }
    const list = breaking.map((l) => `  - ${l}`).join("\n");
    if (major(to) > major(from)) {
      console.log(
        `${breaking.length} breaking change(s) against ${from}, allowed because the major version was raised to ${to}:\n${list}`,
      );
      return 0;
    }
    console.error(
      `${breaking.length} breaking change(s) against the released spec ${from} (current ${to}):\n${list}\n\n` +
        `Undo the change, or release a new major version: raise info.version in openapi/openapi.yaml to ${major(from) + 1}.0.0.\n` +
        `Optic's full report:\n${report}`,
    );
    return 1;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
