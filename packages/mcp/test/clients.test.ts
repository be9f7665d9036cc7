/**
 * `--client openai|anthropic|gemini` (or COMPUTE_MCP_CLIENT), through the SDK's client against the real stub: every
 * listed schema is held to that host's documented subset (test/host-rules.ts), what the subset cannot say is in the
 * descriptions, a call made as the host's model makes it (optional arguments as null) works, and every call is still
 * held to the full schema before anything is sent.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolForHost } from "../src/host-schemas.js";
import { maxDescriptionLength } from "../src/tool-description.js";
import { generatedTools } from "../src/tools.js";
import { anthropicProblems, anthropicRequestProblems, geminiProblems, openaiProblems } from "./host-rules.js";
import {
  connectHttp,
  connectStdio,
  keys,
  killStarted,
  runToExit,
  startHttp,
  startStub,
  type TestStub,
  textOf,
} from "./support.js";

afterAll(killStarted);

type Schema = Record<string, unknown>;
const full = (name: string) => generatedTools().tools.find((t) => t.tool.name === name)!;

const hosts = [
  { host: "openai", problems: openaiProblems, outputRead: false, transport: "stdio" },
  { host: "anthropic", problems: anthropicProblems, outputRead: false, transport: "stdio" },
  { host: "gemini", problems: geminiProblems, outputRead: true, transport: "Streamable HTTP" },
] as const;

describe("the rules of each host's subset", () => {
  // Without --client the schemas use what each host refuses: a checker that found nothing here would test nothing.
  it("find what the full schemas use that each host refuses", () => {
    const update = full("updateClusterMachine").tool.inputSchema as Schema;
    expect(openaiProblems(update)).toEqual(
      expect.arrayContaining(["(root): minProperties is not supported", "(root): powerState must be required"]),
    );
    expect(openaiProblems(update).join("\n")).toMatch(/volumeIds: uniqueItems is not supported/);
    expect(anthropicProblems(update).join("\n")).toMatch(/\.id: minLength is not supported/);
    expect(anthropicProblems(full("searchResources").tool.inputSchema as Schema).join("\n")).toMatch(
      /query: x-search-terms is not supported/,
    );
    expect(geminiProblems(update)).toContain("(root): additionalProperties is not supported");
    expect(geminiProblems(full("searchResources").tool.outputSchema as Schema).join("\n")).toMatch(
      /\$ref is not supported|oneOf is not supported/,
    );
  });
});

describe.each(hosts)(
  "--client $host over $transport",
  { timeout: 240_000 },
  ({ host, problems, outputRead, transport }) => {
    let stub: TestStub;
    let client: Client;
    let close: () => Promise<void>;
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

    beforeAll(async () => {
      stub = await startStub();
      if (transport === "stdio") {
        const connected = await connectStdio(stub.url, keys.alice, ["--client", host]);
        client = connected.client;
        close = connected.close;
      } else {
        const server = await startHttp(stub.url, keys.alice, { COMPUTE_MCP_CLIENT: host });
        client = await connectHttp(server.url);
        close = async () => {
          await client.close();
          await server.close();
        };
      }
    });
    afterAll(async () => {
      await close?.();
      await stub?.close();
    });

    it("lists every schema within the host's subset, and each description within 1,500 characters", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(generatedTools().tools.map((t) => t.tool.name));
      for (const tool of tools) {
        expect({ tool: tool.name, problems: problems(tool.inputSchema as Schema) }).toEqual({
          tool: tool.name,
          problems: [],
        });
        if (outputRead && tool.outputSchema)
          expect({ tool: tool.name, problems: problems(tool.outputSchema as Schema) }).toEqual({
            tool: tool.name,
            problems: [],
          });
        expect(tool.description?.length).toBeLessThanOrEqual(maxDescriptionLength);
        expect(tool).toEqual(JSON.parse(JSON.stringify(toolForHost(full(tool.name), host))));
      }
      if (host === "anthropic") expect(anthropicRequestProblems(tools.map((t) => t.inputSchema as Schema))).toEqual([]);
      // A host that sends the output schema to the model with every request gets it without descriptions.
      const output = JSON.stringify(tools.find((t) => t.name === "searchResources")?.outputSchema);
      const fullOutput = JSON.stringify(full("searchResources").tool.outputSchema);
      if (outputRead) {
        expect(output).not.toMatch(/"description"/);
        expect(output.length).toBeLessThan(fullOutput.length / 2);
      } else expect(JSON.parse(output)).toEqual(JSON.parse(fullOutput));
    });

    it("says in the descriptions what the subset cannot", async () => {
      const { tools } = await client.listTools();
      const update = tools.find((t) => t.name === "updateClusterMachine")!;
      const text = JSON.stringify(update.inputSchema);
      if (host === "gemini") expect(update.inputSchema).toMatchObject({ minProperties: 3 });
      else expect(update.description).toMatch(/must also hold: at least 1 of powerState, priceHr, state, volumeIds\./);
      expect(text).toMatch(/no item twice/);
      expect(text).toMatch(/Example: `vol-alpha-data`/);
      const search = tools.find((t) => t.name === "searchResources")!;
      expect(JSON.stringify(search.inputSchema)).toMatch(/at most 1 `type:` term and 8 other terms/);
    });

    it("offers no UNSPECIFIED state, and names the allowed values when one is sent", async () => {
      const { tools } = await client.listTools();
      const update = tools.find((t) => t.name === "updateClusterMachine")!;
      expect(JSON.stringify(update.inputSchema)).not.toMatch(/UNSPECIFIED"/);
      await stub.clearRequests();
      const refused = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        powerState: "MACHINE_POWER_STATE_UNSPECIFIED",
      });
      expect(textOf(refused)).toMatch(
        /^- powerState: must be equal to one of the allowed values: ON, OFF, POWERING_ON, POWERING_OFF, REBOOTING/m,
      );
      expect(await stub.requests()).toEqual([]);
    });

    it("takes optional arguments given as null as not given, and sends the rest", async () => {
      await stub.clearRequests();
      const result = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        powerState: null,
        priceHr: { value: "2.5" },
        state: null,
        volumeIds: null,
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: "cm-alpha-01", priceHr: { value: "2.5" } });
      const [sent] = await stub.requests();
      expect(sent?.body).toEqual({ priceHr: { value: "2.5" } });
      // Every optional one null: nothing is left to change, which the full schema refuses.
      const none = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        powerState: null,
        priceHr: null,
        state: null,
        volumeIds: null,
      });
      expect(textOf(none)).toMatch(/give at least one of powerState, priceHr, state, volumeIds/);
      // A required one null is refused.
      expect(textOf(await call("searchResources", { query: null }))).toMatch(/^- query: must be string \(type\)$/m);
      expect(await stub.requests()).toHaveLength(1);
    });

    it("holds every call to the full schema before sending anything", async () => {
      await stub.clearRequests();
      const short = await call("createApiKey", { apikeyId: "abc" });
      expect(textOf(short)).toMatch(/^- apikeyId: must NOT have fewer than 4 characters \(minLength\)$/m);
      const twice = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        volumeIds: ["vol-alpha-data", "vol-alpha-data"],
      });
      expect(textOf(twice)).toMatch(/^- volumeIds\[1\]: duplicates item 0.*\(uniqueItems\)$/m);
      const price = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        priceHr: { value: "-1" },
      });
      expect(textOf(price)).toMatch(/^- priceHr\.value: .*\(pattern\)$/m);
      const extra = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        priceHr: { value: "1", currency: "EUR" },
      });
      expect(textOf(extra)).toMatch(/^- priceHr\.currency: /m);
      const terms = await call("searchResources", { query: "a b c d e f g h i" });
      expect(textOf(terms)).toMatch(/^- query: holds 9 terms besides its `type:` term/m);
      expect(await stub.requests()).toEqual([]);
    });
  },
);

describe("--client with --tools or --read-only, and the retries", { timeout: 240_000 }, () => {
  let stub: TestStub;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(async () => {
    await stub?.close();
  });

  it("--client openai --tools updateClusterMachine over stdio: that tool adapted, null optionals not sent, a 503 retried", async () => {
    const { client, close } = await connectStdio(stub.url, keys.alice, [
      "--client",
      "openai",
      "--tools",
      "updateClusterMachine",
    ]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["updateClusterMachine"]);
      expect(tools[0]).toEqual(JSON.parse(JSON.stringify(toolForHost(full("updateClusterMachine"), "openai"))));
      expect(openaiProblems(tools[0]!.inputSchema as Schema)).toEqual([]);
      expect(client.getInstructions()).not.toMatch(/createApiKey|searchResources/);
      // The seeded draws of 503=50% from seed 7: 503, 503, then 200.
      await stub.faults({ faults: "503=50%", seed: 7 });
      await stub.clearRequests();
      const result = await client.callTool({
        name: "updateClusterMachine",
        arguments: {
          projectId: "proj-alpha",
          id: "cm-alpha-02",
          powerState: "REBOOTING",
          priceHr: null,
          state: null,
          volumeIds: null,
        },
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: "cm-alpha-02", powerState: "REBOOTING" });
      const sent = await stub.requests({ method: "PATCH" });
      expect(sent.map((entry) => entry.status)).toEqual([503, 503, 200]);
      expect(sent.at(-1)?.body).toEqual({ powerState: "REBOOTING" });
    } finally {
      await stub.faults({ faults: null });
      await close();
    }
  });

  it("COMPUTE_MCP_CLIENT=gemini with --read-only over Streamable HTTP: the search alone, adapted, limit null taken as not given", async () => {
    const server = await startHttp(stub.url, keys.alice, { COMPUTE_MCP_CLIENT: "gemini" }, ["--read-only"]);
    const client = await connectHttp(server.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["searchResources"]);
      expect(tools[0]).toEqual(JSON.parse(JSON.stringify(toolForHost(full("searchResources"), "gemini"))));
      expect(geminiProblems(tools[0]!.inputSchema as Schema)).toEqual([]);
      expect(geminiProblems(tools[0]!.outputSchema as Schema)).toEqual([]);
      const result = await client.callTool({ name: "searchResources", arguments: { query: "a", limit: null } });
      expect(result.isError, textOf(result)).toBeFalsy();
      // No limit given: the default keeps 10, and `omitted` counts the others.
      const body = result.structuredContent as { results: unknown[]; omitted?: number };
      expect(body.results).toHaveLength(10);
      expect(body.omitted).toBeGreaterThan(0);
      await expect(client.callTool({ name: "createApiKey", arguments: { apikeyId: "not-served" } })).rejects.toThrow(
        /Unknown tool: createApiKey/,
      );
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("an unknown host", () => {
  it("refuses to start, naming the hosts there are (exit status 2)", { timeout: 60_000 }, async () => {
    const { code, stderr } = await runToExit(["--client", "claude"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /'--client <host>' argument 'claude' is invalid\. Allowed choices are openai, anthropic, gemini/,
    );
  });
});
