/**
 * The suites that need programs from the system (podman with runc and debootstrap, Chromium, nginx, PostgreSQL) on a
 * machine that lacks some of them: the fixture suites of fixtures/skips, guarded and started as the repository's own
 * suites are, run by vitest in a mount namespace where the chosen programs are really absent (an empty file mounted
 * over each executable of theirs). Without CI each suite that needs a missing program is skipped, with one line per
 * run saying how to get it, and the others run; with CI=true those suites fail with that line.
 */
import { execFile, spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  chromiumProgram,
  debootstrapProgram,
  findProgram,
  inCi,
  missingMessage,
  nginxProgram,
  podmanProgram,
  postgresProgram,
  runcProgram,
  type SystemProgram,
} from "../src/system.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixtures = fileURLToPath(new URL("./fixtures/skips/", import.meta.url));
const vitest = join(root, "node_modules/vitest/vitest.mjs");
const all = [podmanProgram, runcProgram, debootstrapProgram, chromiumProgram, nginxProgram, postgresProgram];
/** The programs the cases below hide; the machine must have them all, else what is absent is absent anyway. */
const lacking = all.filter((program) => findProgram(program) === undefined);
/** unshare's flags for a mount namespace of our own (a user namespace too, unless root). */
const namespace = ["--mount", ...(process.getuid?.() === 0 ? [] : ["--map-root-user"])];
/** Why this machine cannot hide programs (no mount namespace for us), if it cannot. */
const cannotHide = (() => {
  const probe = spawnSync("unshare", [...namespace, "true"], { encoding: "utf8" });
  return probe.status === 0
    ? undefined
    : `unshare ${namespace.join(" ")} failed: ${probe.error ?? probe.stderr.trim()}`;
})();
if (cannotHide !== undefined && !inCi()) process.stderr.write(`skipped: the test of the skips, for ${cannotHide}\n`);

/** Each executable of `program` that findProgram could find here: its commands in PATH's and its own directories. */
function executablesOf(program: SystemProgram): string[] {
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), ...program.dirs];
  return dirs.flatMap((dir) =>
    program.commands
      .map((name) => join(dir, name))
      .filter((path) => {
        try {
          accessSync(path, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
  );
}

/** What each fixture suite did ("passed", "skipped", or "failed: <messages>"), and the `skipped:` lines of the run. */
interface Run {
  readonly outcomes: Record<string, string>;
  readonly skipLines: string[];
}

/** vitest on fixtures/skips with `hidden` absent, and CI=true when `ci`. */
async function runWithout(hidden: readonly SystemProgram[], ci: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "compute-api-skips-"));
  try {
    const empty = join(dir, "empty");
    writeFileSync(empty, "", { mode: 0o644 });
    const report = join(dir, "report.json");
    const env: NodeJS.ProcessEnv = {};
    // Not the variables of the vitest running this file (its worker's), nor those naming a hidden program.
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("VITEST")) env[key] = value;
    for (const program of hidden) if (program.env !== undefined) delete env[program.env];
    if (ci) env.CI = "true";
    else delete env.CI;
    const mounts =
      'e=$1; shift; while [ "$1" != -- ]; do mount --bind "$e" "$1" || exit 97; shift; done; shift; exec "$@"';
    const args = [...namespace, "--", "sh", "-c", mounts, "sh", empty, ...hidden.flatMap(executablesOf), "--"];
    args.push(process.execPath, vitest, "run", "--root", fixtures, "--reporter=json", `--outputFile=${report}`);
    const stderr = await new Promise<string>((resolve) => {
      execFile("unshare", args, { env, timeout: 5 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (_error, _out, err) =>
        resolve(err),
      );
    });
    const results: { name: string; assertionResults: { status: string; failureMessages: string[] }[] }[] = JSON.parse(
      readFileSync(report, "utf8"),
    ).testResults;
    const outcomes: Record<string, string> = {};
    for (const file of results) {
      const failures = file.assertionResults.flatMap((test) => test.failureMessages);
      const [status] = new Set(file.assertionResults.map((test) => test.status));
      const suite = file.name.slice(fixtures.length).replace(/\.fixture\.ts$/, "");
      outcomes[suite] = failures.length > 0 ? `failed: ${failures.join("\n")}` : String(status);
    }
    return { outcomes, skipLines: stderr.split("\n").filter((line) => line.startsWith("skipped:")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Where a program is missing, the suites that need it have said so in their line: this file skips without its own.
describe.skipIf((cannotHide !== undefined || lacking.length > 0) && !inCi())("suites whose programs are absent", () => {
  it("skip, with one line per run saying how to get what is missing: podman and Chromium absent", async () => {
    expect({ cannotHide, lacking: lacking.map((program) => program.name) }).toEqual({ lacking: [] });
    const run = await runWithout([podmanProgram, chromiumProgram], false);
    expect(run.outcomes).toEqual({
      containers: "skipped",
      kubernetes: "skipped",
      browser: "skipped",
      nginx: "passed",
      postgres: "passed",
    });
    expect(run.skipLines.sort()).toEqual([
      "skipped: Chromium not found, so the browser suites (packages/gateway/test/cors.test.ts " +
        '"a web front end in Chromium", packages/stub-server/test/docs.test.ts) cannot run: apt-get install chromium, ' +
        "or set CHROMIUM_PATH to its executable",
      "skipped: podman not found, so the container and Kubernetes suites (test/containers, deploy/kubernetes) " +
        "cannot run: apt-get install podman, or set PODMAN_PATH to its executable",
    ]);
  }, 300_000);

  it("skip with podman present but runc and debootstrap absent, and without nginx and PostgreSQL", async () => {
    expect({ cannotHide, lacking: lacking.map((program) => program.name) }).toEqual({ lacking: [] });
    const run = await runWithout([runcProgram, debootstrapProgram, nginxProgram, postgresProgram], false);
    expect(run.outcomes).toEqual({
      containers: "skipped",
      kubernetes: "skipped",
      browser: "passed",
      nginx: "skipped",
      postgres: "skipped",
    });
    expect(run.skipLines.sort()).toEqual(
      [
        "skipped: runc and debootstrap not found, so the container and Kubernetes suites (test/containers, " +
          "deploy/kubernetes) cannot run: apt-get install runc debootstrap, or set DEBOOTSTRAP_PATH to its executable",
        `skipped: ${missingMessage(nginxProgram)}`,
        `skipped: ${missingMessage(postgresProgram)}`,
      ].sort(),
    );
  }, 300_000);

  it("fail under CI=true, with the line saying how to get what is missing: runc and PostgreSQL absent", async () => {
    expect({ cannotHide, lacking: lacking.map((program) => program.name) }).toEqual({ lacking: [] });
    const run = await runWithout([runcProgram, postgresProgram], true);
    const runc = `failed: Error: ${missingMessage(runcProgram)}`;
    expect(run.outcomes).toEqual({
      containers: expect.stringContaining(runc),
      kubernetes: expect.stringContaining(runc),
      browser: "passed",
      nginx: "passed",
      postgres: expect.stringContaining(`failed: Error: ${missingMessage(postgresProgram)}`),
    });
    expect(runc).toContain("runc not found, so the container and Kubernetes suites");
    expect(run.skipLines).toEqual([]);
  }, 300_000);
});
