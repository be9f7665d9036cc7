/**
 * Lints the OpenAPI document with Redocly (the split sources) and Spectral (the bundle, with the OWASP
 * ruleset). Fails on any error or warning from either linter.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { mustRun, root, runTool, specEntry } from "./tools.js";

/** Problem counts of one linter. */
interface LintTotals {
  linter: string;
  errors: number;
  warnings: number;
  report: string;
}

async function redocly(): Promise<LintTotals> {
  const result = await runTool("redocly", ["lint", specEntry, "--format=json"]);
  const start = result.stdout.indexOf("{");
  const parsed = JSON.parse(result.stdout.slice(start)) as { totals: { errors: number; warnings: number } };
  const pretty =
    parsed.totals.errors + parsed.totals.warnings > 0 ? await runTool("redocly", ["lint", specEntry]) : undefined;
  return {
    linter: "redocly",
    errors: parsed.totals.errors,
    warnings: parsed.totals.warnings,
    report: pretty ? pretty.stdout + pretty.stderr : "",
  };
}

async function spectral(): Promise<LintTotals> {
  // Spectral lints the bundle, written under .cache/.
  const bundle = path.join(root, ".cache", "lint", "openapi.json");
  await mkdir(path.dirname(bundle), { recursive: true });
  await mustRun("redocly", ["bundle", specEntry, "-o", bundle]);
  const result = await runTool("spectral", ["lint", bundle, "--format=json", "--quiet"]);
  const problems = JSON.parse(result.stdout || "[]") as { severity: number }[];
  const errors = problems.filter((p) => p.severity === 0).length;
  const warnings = problems.filter((p) => p.severity === 1).length;
  const pretty = errors + warnings > 0 ? await runTool("spectral", ["lint", bundle]) : undefined;
  return { linter: "spectral", errors, warnings, report: pretty ? pretty.stdout + pretty.stderr : "" };
}

/** Runs both linters; resolves to true when both report nothing. */
export async function lint(): Promise<boolean> {
  const totals = [await redocly(), await spectral()];
  let clean = true;
  for (const t of totals) {
    console.log(`${t.linter}: ${t.errors} errors, ${t.warnings} warnings`);
    if (t.errors + t.warnings > 0) {
      clean = false;
      console.log(t.report);
    }
  }
  return clean;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = (await lint()) ? 0 : 1;
}
