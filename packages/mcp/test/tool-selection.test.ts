/**
 * Choosing the tools a client gets: `--tools NAME,…` and `--read-only`, or their variables, through the SDK's
 * client over stdio and Streamable HTTP, against the real stub. tools/list lists exactly what the flags say, a
 * tool left out cannot be called, and an unknown name stops compute-mcp before it starts (exit status 2).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectHttp,
  connectStdio,
  keys,
  killStarted,
  runToExit,
  startHttp,
  startStub,
  type TestStub,
} from "./support.js";

afterAll(killStarted);

/** How a client reaches a compute-mcp started with these flags and variables. */
const transports: {
  name: string;
  connect(
    baseUrl: string,
    args: string[],
    env: Record<string, string>,
  ): Promise<{ client: Client; close(): Promise<void> }>;
}[] = [
  { name: "stdio", connect: (baseUrl, args, env) => connectStdio(baseUrl, keys.alice, args, env) },
  {
    name: "Streamable HTTP",
    async connect(baseUrl, args, env) {
      const server = await startHttp(baseUrl, keys.alice, env, args);
      const client = await connectHttp(server.url);
      return {
        client,
        close: async () => {
          await client.close();
          await server.close();
        },
      };
    },
  },
];

const selections: [string, { args: string[]; env: Record<string, string>; want: string[] }][] = [
  [
    "--tools",
    {
      args: ["--tools", "updateClusterMachine,searchResources"],
      env: {},
      want: ["searchResources", "updateClusterMachine"],
    },
  ],
  [
    "--tools, repeated",
    {
      args: ["--tools", "createApiKey", "--tools", "searchResources"],
      env: {},
      want: ["createApiKey", "searchResources"],
    },
  ],
  ["COMPUTE_MCP_TOOLS", { args: [], env: { COMPUTE_MCP_TOOLS: "createApiKey" }, want: ["createApiKey"] }],
  ["--read-only", { args: ["--read-only"], env: {}, want: ["searchResources"] }],
  ["COMPUTE_MCP_READ_ONLY=true", { args: [], env: { COMPUTE_MCP_READ_ONLY: "true" }, want: ["searchResources"] }],
  [
    "--tools with --read-only",
    { args: ["--tools", "searchResources,updateClusterMachine", "--read-only"], env: {}, want: ["searchResources"] },
  ],
];

describe.each(transports)("choosing the tools over $name", { timeout: 240_000 }, (transport) => {
  let stub: TestStub;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(async () => {
    await stub?.close();
  });

  it.each(selections)("%s: tools/list lists exactly those tools", async (_name, { args, env, want }) => {
    const { client, close } = await transport.connect(stub.url, args, env);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(want);
      // The instructions name these tools, and the statuses of their operations only.
      const instructions = client.getInstructions() ?? "";
      expect(instructions).toMatch(new RegExp(`operation of its OpenAPI document: ${want[0]} \\(`));
      expect(instructions.includes("404 nothing has")).toBe(want.includes("updateClusterMachine"));
      for (const tool of tools)
        if (env.COMPUTE_MCP_READ_ONLY || args.includes("--read-only"))
          expect(tool.annotations?.readOnlyHint).toBe(true);
    } finally {
      await close();
    }
  });

  it("a tool left out cannot be called, and nothing is sent", async () => {
    const { client, close } = await transport.connect(stub.url, ["--read-only"], {});
    try {
      await stub.clearRequests();
      await expect(client.callTool({ name: "createApiKey", arguments: { apikeyId: "not-served" } })).rejects.toThrow(
        /Unknown tool: createApiKey/,
      );
      expect(await stub.requests()).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe("an unknown tool name", () => {
  it.each([
    ["as a flag", ["--tools", "searchResources,deleteEverything"], {}],
    ["in COMPUTE_MCP_TOOLS", [], { COMPUTE_MCP_TOOLS: "searchResources,deleteEverything" }],
  ])("%s refuses to start, naming it (exit status 2)", { timeout: 60_000 }, async (_name, args, env) => {
    const { code, stderr } = await runToExit(args, env);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /unknown tool 'deleteEverything'; the tools are createApiKey, searchResources, updateClusterMachine/,
    );
  });

  it("--tools naming only tools --read-only leaves out refuses to start", { timeout: 60_000 }, async () => {
    const { code, stderr } = await runToExit(["--tools", "createApiKey", "--read-only"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no tool left: --read-only leaves out createApiKey/);
  });
});
