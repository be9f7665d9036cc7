/**
 * The MCP Inspector's command line (@modelcontextprotocol/inspector-cli, a client no one here wrote) lists the tools
 * and calls each one: over stdio, started from the very JSON block the README gives agent hosts (`mcpServers`), and
 * over Streamable HTTP with the client token as a header.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedTools } from "../src/tools.js";
import { type HttpMcp, keys, killStarted, nodeArgs, startHttp, startStub, type TestStub } from "./support.js";

const inspectorBuild = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build",
);

/** Runs the inspector's CLI mode; resolves with its parsed JSON output. */
function inspect(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    // Its build reads its package.json as `../package.json` relative to the working directory when that exists
    // there, and relative to its own module when it imports it: run it from its own build folder, where both agree.
    execFile(
      process.execPath,
      [path.join(inspectorBuild, "cli.js"), "--cli", ...args],
      { cwd: inspectorBuild, timeout: 180_000, env: { PATH: process.env.PATH ?? "" } },
      (error, stdout, stderr) => {
        const json = stdout.slice(stdout.indexOf("{"));
        try {
          resolve(JSON.parse(json) as Record<string, unknown>);
        } catch {
          reject(new Error(`inspector failed (${error?.message}): ${stdout}${stderr}`));
        }
      },
    );
  });
}

/** The calls the inspector makes: one per tool, with `--tool-arg` values (JSON where they are objects). */
const calls: { tool: string; args: string[]; want: RegExp }[] = [
  { tool: "searchResources", args: ["query=train type:cluster"], want: /^searchResources: 1 result/ },
  {
    tool: "updateClusterMachine",
    args: ["projectId=proj-alpha", "id=cm-alpha-02", 'priceHr={"value":"3.25"}', "powerState=ON"],
    want: /^updateClusterMachine: done cm-alpha-02\./,
  },
  {
    tool: "createApiKey",
    args: ["apikeyId=inspector-key"],
    want: /^createApiKey: done inspector-key\.\nkey: shown only this once/,
  },
];

const toolArgs = (args: string[]) => args.flatMap((arg) => ["--tool-arg", arg]);

describe("the MCP Inspector's command line", () => {
  let stub: TestStub;
  let http: HttpMcp;
  let dir: string;
  const token = "inspector-client-token-0123456789";
  beforeAll(async () => {
    stub = await startStub();
    http = await startHttp(stub.url, keys.bob, { COMPUTE_MCP_AUTH_TOKEN: token });
    dir = await mkdtemp(path.join(tmpdir(), "compute-mcp-inspector-"));
  });
  afterAll(async () => {
    await http?.close();
    await stub?.close();
    await rm(dir, { recursive: true, force: true });
    killStarted();
  });

  it("over stdio, from the host configuration the README shows, lists the tools and calls each one", async () => {
    // The README's block, with the command run from source and this stub's URL and key.
    const config = {
      mcpServers: {
        compute: {
          command: process.execPath,
          args: [...nodeArgs, "--base-url", stub.url],
          env: { COMPUTE_API_KEY: keys.alice },
        },
      },
    };
    const file = path.join(dir, "mcp.json");
    await writeFile(file, JSON.stringify(config));
    const listed = await inspect(["--config", file, "--server", "compute", "--method", "tools/list"]);
    expect(listed.tools).toEqual(generatedTools().tools.map((t) => t.tool));
    for (const { tool, args, want } of calls) {
      const result = await inspect([
        "--config",
        file,
        "--server",
        "compute",
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        ...toolArgs(args),
      ]);
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect((result.content as { text: string }[])[0]?.text).toMatch(want);
    }
    // Four inspector runs, each starting compute-mcp: on a loaded machine that is more than the default 30 s.
  }, 540_000);

  it("over Streamable HTTP, with the client token as a header, lists the tools and calls one", async () => {
    const target = [http.url, "--transport", "http", "--header", `Authorization: Bearer ${token}`];
    const listed = await inspect([...target, "--method", "tools/list"]);
    expect((listed.tools as { name: string }[]).map((t) => t.name)).toEqual(
      generatedTools().tools.map((t) => t.tool.name),
    );
    const result = await inspect([
      ...target,
      "--method",
      "tools/call",
      "--tool-name",
      "searchResources",
      ...toolArgs(["query=beta"]),
    ]);
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^searchResources: \d+ results?/);
    const refused = await inspect([http.url, "--transport", "http", "--method", "tools/list"]).catch((e: Error) => e);
    expect(String(refused)).toMatch(/missing or wrong bearer token/);
  }, 360_000);
});
