/**
 * flushStdoutLog, in a process of its own: a line logged after standard output's log is closed is dropped, and
 * the process keeps its exit code (sonic-boom throws on a write once closed, which ended a draining command that got
 * its second SIGTERM in that moment with exit code 1).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const program = fileURLToPath(new URL("support/late-log-program.ts", import.meta.url));

describe("flushStdoutLog", () => {
  it("flushes the lines logged before it, drops those logged after, and the process exits 0", async () => {
    const child = spawn(process.execPath, ["--conditions=@compute-api/source", "--import", "tsx", program], {
      env: { PATH: process.env.PATH },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const [code] = (await once(child, "exit")) as [number];
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const messages = out
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(["before the flush"]);
  });
});
