/**
 * What a run prints: a table of each check by operation, each failure with the request as a curl line (the key
 * written `$KEY`) and its shrunk counterexample, response times, and a JUnit XML report for CI.
 */
import { checks } from "./checks.js";
import type { RawRequest } from "./http.js";
import type { Report } from "./run.js";

/** A shell word in single quotes. */
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The request as a curl command line. The run's own key is written `$KEY`, so that the line can be shared and
 * run; any other Authorization (the malformed and unknown keys of ignored_auth) is written as it was sent.
 */
export function curl(baseUrl: string, request: RawRequest, apiKey: string): string {
  const parts = ["curl", "-X", request.method, quote(baseUrl.replace(/\/+$/, "") + request.path)];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const text = Array.isArray(value) ? value.join(", ") : value;
    parts.push(
      "-H",
      /^authorization$/i.test(name) && text === `Bearer ${apiKey}`
        ? `"${name}: Bearer $KEY"`
        : quote(`${name}: ${text}`),
    );
  }
  if (request.body !== undefined)
    parts.push("--data-raw", quote(Buffer.isBuffer(request.body) ? request.body.toString("utf8") : request.body));
  return parts.join(" ");
}

const pad = (text: string | number, width: number, right = false) =>
  right ? String(text).padStart(width) : String(text).padEnd(width);

/** The report as the terminal shows it. */
export function formatReport(report: Report, replay: string, apiKey: string): string {
  const lines: string[] = [];
  const checkWidth = Math.max(...report.results.map((r) => r.check.length), 5);
  const opWidth = Math.max(...report.results.map((r) => r.operationId.length), 9);
  lines.push(
    `${pad("check", checkWidth)}  ${pad("operation", opWidth)}  ${pad("passed", 7, true)}  ${pad("failed", 7, true)}`,
  );
  for (const r of report.results) {
    lines.push(
      `${pad(r.check, checkWidth)}  ${pad(r.operationId, opWidth)}  ${pad(r.passed, 7, true)}  ${pad(r.failed, 7, true)}${r.failed > 0 ? "  ✗" : ""}`,
    );
  }
  const failures = report.results.filter((r) => r.failure);
  if (failures.length > 0) {
    lines.push("", "Failures:");
    for (const { check, operationId, failed, failure } of failures) {
      if (!failure) continue;
      lines.push(
        "",
        `✗ ${check} · ${operationId} (${failed} failed; ${checks[check]})`,
        `  ${failure.message}`,
        `  ${curl(report.baseUrl, failure.request, apiKey)}`,
      );
      if (failure.shrunk) {
        lines.push(
          `  shrunk in ${failure.shrunk.steps} steps to: ${failure.shrunk.message}`,
          `  ${curl(report.baseUrl, failure.shrunk.request, apiKey)}`,
        );
      }
    }
  }
  lines.push(
    "",
    `${pad("operation", opWidth)}  ${pad("requests", 8, true)}  ${pad("p50 ms", 7, true)}  ${pad("p99 ms", 7, true)}`,
  );
  for (const l of report.latency)
    lines.push(
      `${pad(l.operationId, opWidth)}  ${pad(l.requests, 8, true)}  ${pad(l.p50.toFixed(1), 7, true)}  ${pad(l.p99.toFixed(1), 7, true)}`,
    );
  if (report.notes.length > 0) lines.push("", ...report.notes.map((n) => `note: ${n}`));
  if (report.warnings.length > 0) lines.push("", ...report.warnings.map((w) => `warning: ${w}`));
  const failing = report.results.filter((r) => r.failed > 0).length;
  const warned =
    report.warnings.length === 0
      ? ""
      : `, with ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"} above`;
  lines.push(
    "",
    `${report.requests} requests in ${(report.elapsedMs / 1000).toFixed(1)} s, seed ${report.seed}: ` +
      (failing === 0
        ? `every check passed (${report.results.length} checks by operation)${warned}.`
        : `${failing} of ${report.results.length} checks by operation failed${warned}.`),
  );
  if (failing > 0) lines.push(`Replay: ${replay}`);
  return lines.join("\n");
}

const xml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 cannot carry these control characters; they are removed
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

/**
 * The report as JUnit XML: a test suite per check, a test case per operation, a failure with the curl lines; the
 * warnings as skipped test cases of a suite `warnings`.
 */
export function junitReport(report: Report, apiKey: string): string {
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`];
  const failures = report.results.filter((r) => r.failed > 0).length;
  out.push(
    `<testsuites name="compute-conformance" tests="${report.results.length}" failures="${failures}" time="${(report.elapsedMs / 1000).toFixed(3)}">`,
  );
  for (const check of Object.keys(checks)) {
    const cases = report.results.filter((r) => r.check === check);
    if (cases.length === 0) continue;
    out.push(
      `  <testsuite name="${check}" tests="${cases.length}" failures="${cases.filter((c) => c.failed > 0).length}">`,
    );
    for (const c of cases) {
      out.push(`    <testcase classname="${check}" name="${xml(c.operationId)}">`);
      if (c.failure) {
        const detail = [
          c.failure.message,
          curl(report.baseUrl, c.failure.request, apiKey),
          ...(c.failure.shrunk
            ? [`shrunk: ${c.failure.shrunk.message}`, curl(report.baseUrl, c.failure.shrunk.request, apiKey)]
            : []),
        ];
        out.push(
          `      <failure message="${xml(`${c.failed} of ${c.passed + c.failed} failed: ${c.failure.message}`)}">${xml(detail.join("\n"))}</failure>`,
        );
      }
      out.push(`      <system-out>${c.passed} passed, ${c.failed} failed</system-out>`, "    </testcase>");
    }
    out.push("  </testsuite>");
  }
  if (report.warnings.length > 0) {
    out.push(
      `  <testsuite name="warnings" tests="${report.warnings.length}" failures="0" skipped="${report.warnings.length}">`,
    );
    for (const [i, warning] of report.warnings.entries())
      out.push(
        `    <testcase classname="warnings" name="warning ${i + 1}">`,
        `      <skipped message="${xml(warning)}"/>`,
        "    </testcase>",
      );
    out.push("  </testsuite>");
  }
  out.push("</testsuites>", "");
  return out.join("\n");
}
