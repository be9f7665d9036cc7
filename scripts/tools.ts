/** Paths of the repository and a runner for the command-line tools the scripts drive. */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the repository. */
export const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The hand-written entry point of the OpenAPI document. */
export const specEntry = path.join(root, "openapi", "openapi.yaml");

/** Where the committed, generated artefacts live. */
export const generatedDir = path.join(root, "generated");

// Redocly CLI sends telemetry and prints update notices unless told not to; none of that is wanted.
const quietEnv = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_COLOR: "1",
};

/** Result of one tool run. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a binary from node_modules/.bin and collects its output; never throws on a non-zero exit. */
export function runTool(bin: string, args: string[]): Promise<ToolResult> {
  const file = path.join(root, "node_modules", ".bin", bin);
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: root, env: quietEnv, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") {
        reject(error);
        return;
      }
      resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
    });
  });
}

/** Runs a tool and throws with its output when it fails. */
export async function mustRun(bin: string, args: string[]): Promise<ToolResult> {
  const result = await runTool(bin, args);
  if (result.code !== 0) {
    throw new Error(`${bin} ${args.join(" ")} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}
