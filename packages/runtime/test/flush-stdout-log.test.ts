/**
 * flushStdoutLog, in a process of its own: a line logged after standard output's log is closed is dropped, and
 * the process keeps its exit code (sonic-boom throws on a write once closed, which ended a draining command that got
 * its second SIGTERM in that moment with exit code 1).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const program = fileURLToPath(new URL("support/late-log-program.ts", import.meta.url));

describe("flushStdoutLog", () => {
  it("flushes the lines logged before it, drops those logged after, and the process exits 0", async () => {
    // Rejects, with the exit code and standard error, unless the program exits 0.
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--conditions=@compute-api/source", "--import", "tsx", program],
      { env: { PATH: process.env.PATH } },
    );
    expect(stderr).toBe("");
    const messages = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(["before the flush"]);
  });
});
