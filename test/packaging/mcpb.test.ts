/**
 * compute-mcp's MCP bundle as a host installs it: `npm run mcpb`'s build (scripts/mcpb.ts) makes a `.mcpb` whose
 * manifest the official validator (`mcpb validate`, of @anthropic-ai/mcpb) accepts, with the API key a sensitive,
 * required setting that reaches the server in its environment only. Unpacked with the official command, its server
 * is started exactly as the manifest says (its `${__dirname}` and `${user_config.…}` put in, as a host does) and
 * the SDK's client lists its tools and calls one against the real stub.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type StubHandle, startStub } from "@compute-api/stub-server/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMcpb, hostVariable, mcpbCli } from "../../scripts/mcpb.js";

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), "compute-api-mcpb-"));
const unpacked = join(scratch, "unpacked");

interface McpConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
}
interface BundleManifest {
  name: string;
  server: { type: string; entry_point: string; mcp_config: McpConfig };
  user_config: Record<string, { type: string; sensitive?: boolean; required?: boolean }>;
  tools: { name: string }[];
}

/** What a host makes of `mcp_config`: each `${__dirname}` and `${user_config.KEY}` replaced by its value. */
function substituted(config: McpConfig, settings: Record<string, string>): McpConfig {
  const fill = (text: string) =>
    text
      .replaceAll(hostVariable("__dirname"), unpacked)
      .replace(/\$\{user_config\.([a-z_]+)\}/g, (_match, key: string) => settings[key] ?? "");
  return {
    command: config.command,
    args: config.args.map(fill),
    env: Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, fill(value)])),
  };
}

describe("the MCP bundle (npm run mcpb)", () => {
  let bundle: string;
  let manifest: BundleManifest;
  let stub: StubHandle;

  beforeAll(async () => {
    bundle = await buildMcpb(join(scratch, "out"));
    await run(process.execPath, [mcpbCli, "unpack", bundle, unpacked]);
    manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8")) as BundleManifest;
    stub = await startStub();
  }, 540_000);
  afterAll(async () => {
    await stub?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("has a manifest that the official validator accepts", async () => {
    const { stdout } = await run(process.execPath, [mcpbCli, "validate", join(unpacked, "manifest.json")]);
    expect(stdout).toMatch(/Manifest schema validation passes/);
    expect(manifest.name).toBe("compute-mcp");
    expect(manifest.server.type).toBe("node");
    expect(manifest.tools.map((t) => t.name)).toEqual(["createApiKey", "searchResources", "updateClusterMachine"]);
  });

  it("declares the API key a sensitive, required setting, given to the server in its environment only", () => {
    expect(manifest.user_config.api_key).toMatchObject({ type: "string", sensitive: true, required: true });
    const { args, env } = manifest.server.mcp_config;
    expect(env.COMPUTE_API_KEY).toBe(hostVariable("user_config.api_key"));
    expect(args.join(" ")).not.toMatch(/api_key/);
  });

  it.each([
    ["every tool", "false", ["createApiKey", "searchResources", "updateClusterMachine"]],
    ["read-only", "true", ["searchResources"]],
  ])(
    "starts over stdio as the manifest says (%s), lists the tools and calls one",
    {
      timeout: 120_000,
    },
    async (_name, readOnly, tools) => {
      const config = substituted(manifest.server.mcp_config, {
        base_url: stub.url,
        api_key: stub.apiKey,
        read_only: readOnly,
      });
      // The host's `node` is this test's own.
      const command = config.command === "node" ? process.execPath : config.command;
      const transport = new StdioClientTransport({
        command,
        args: config.args,
        env: { PATH: process.env.PATH ?? "", ...config.env },
        stderr: "pipe",
      });
      const client = new Client({ name: "bundle-host", version: "1.0.0" });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(tools);
        const result = await client.callTool({ name: "searchResources", arguments: { query: "train type:cluster" } });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ results: [{ resourceType: "cluster" }] });
      } finally {
        await client.close();
      }
    },
  );
});
