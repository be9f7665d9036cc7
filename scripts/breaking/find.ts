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
import { keywordFindings } from "./keywords.js";
import { pointer, type SpecFiles } from "./locate.js";
import { type OasdiffChange, type OasdiffCheck, oasdiff } from "./oasdiff.js";
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
function operationName(change: OasdiffChange): string {
  if (!change.operation || !change.path) return "components";
  return `${change.operation} ${change.path}${change.operationId ? ` (${change.operationId})` : ""}`;
}

/** oasdiff's changes as findings; its information-level changes are quiet. */
function changelogFindings(changes: OasdiffChange[], files: SpecFiles): Finding[] {
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
    const [changes, diff, checks] = await Promise.all([
      oasdiff<OasdiffChange[]>("changelog", ["--flatten-params", "--severity-levels", levels, base, revision]),
      oasdiff<Json>("diff", ["--flatten-params", "--exclude-elements", "description,examples", base, revision]),
      oasdiff<OasdiffCheck[]>("checks"),
    ]);
    const known = new Set((checks ?? []).flatMap((c) => (c.id ? [c.id] : [])));
    return [...changelogFindings(changes ?? [], files), ...keywordFindings(diff ?? {}, files, known)];
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
