/**
 * The tools through the SDK's own client, against the real stub: over stdio (the command an agent host starts),
 * over Streamable HTTP (with its bearer token), and over stdio with the real gateway between compute-mcp and the
 * stub. Each setup has stubs of its own, so that the changes one makes are not seen by another.
 */
import type { SearchResourcesResponse } from "@compute-api/client";
import { createGateway } from "@compute-api/gateway";
import { type Listening, listenLocal } from "@compute-api/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedTools } from "../src/tools.js";
import {
  connectHttp,
  connectStdio,
  keys,
  killStarted,
  startHttp,
  startStub,
  type TestStub,
  textOf,
} from "./support.js";

afterAll(killStarted);

/** A connected client, what its compute-mcp logged, and how to stop both. */
interface Session {
  client: Client;
  logs(): string;
  close(): Promise<void>;
}

const token = "mcp-test-client-token-0123456789";

/** How a setup reaches the service: compute-mcp's transport, and whether the gateway stands in front of the stub. */
const setups: { name: string; gateway: boolean; connect(baseUrl: string, apiKey: string): Promise<Session> }[] = [
  {
    name: "stdio",
    gateway: false,
    async connect(baseUrl, apiKey) {
      const { client, stderr, close } = await connectStdio(baseUrl, apiKey);
      return { client, logs: stderr, close };
    },
  },
  {
    name: "Streamable HTTP",
    gateway: false,
    async connect(baseUrl, apiKey) {
      const server = await startHttp(baseUrl, apiKey, { COMPUTE_MCP_AUTH_TOKEN: token });
      const client = await connectHttp(server.url, token);
      return {
        client,
        logs: server.stderr,
        close: async () => {
          await client.close();
          await server.close();
        },
      };
    },
  },
  {
    name: "stdio, through the gateway",
    gateway: true,
    async connect(baseUrl, apiKey) {
      const { client, stderr, close } = await connectStdio(baseUrl, apiKey);
      return { client, logs: stderr, close };
    },
  },
];

/** The gateway in front of `upstream`, on an ephemeral port. */
async function gatewayFor(upstream: string): Promise<Listening> {
  const gateway = await createGateway({ upstream });
  const listening = await listenLocal(gateway.app);
  return {
    ...listening,
    close: async () => {
      await listening.close();
      await gateway.close();
    },
  };
}

// Some tests start another compute-mcp, which takes seconds on a loaded machine.
describe.each(setups)("compute-mcp over $name", { timeout: 270_000 }, (setup) => {
  let stub: TestStub;
  let limited: TestStub;
  let front: Listening[] = [];
  let session: Session;
  let baseUrl: string;
  let limitedUrl: string;
  const sessions: Session[] = [];

  beforeAll(async () => {
    stub = await startStub();
    // One request a minute per key: the second call in a row is answered 429 with Retry-After, however busy the
    // machine.
    limited = await startStub({ faults: { rateLimit: 1 / 60 } });
    baseUrl = stub.url;
    limitedUrl = limited.url;
    if (setup.gateway) {
      front = [await gatewayFor(stub.url), await gatewayFor(limited.url)];
      baseUrl = front[0]!.url;
      limitedUrl = front[1]!.url;
    }
    session = await setup.connect(baseUrl, keys.alice);
    sessions.push(session);
  });
  afterAll(async () => {
    for (const s of sessions) await s.close();
    for (const f of front) await f.close();
    await stub?.close();
    await limited?.close();
  });

  const call = (name: string, args: Record<string, unknown>) => session.client.callTool({ name, arguments: args });

  it("lists one tool per operation, with the schemas generated from the spec", async () => {
    const { tools } = await session.client.listTools();
    expect(tools).toEqual(generatedTools().tools.map((t) => t.tool));
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["createApiKey", "searchResources", "updateClusterMachine"]),
    );
  });

  it("lists the statuses a call may fail with once, in the server's instructions", () => {
    const instructions = session.client.getInstructions() ?? "";
    const statuses = [...new Set(generatedTools().tools.flatMap((t) => t.operation.failures))];
    expect(statuses).toEqual(expect.arrayContaining([400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 504]));
    for (const status of statuses) expect(instructions).toMatch(new RegExp(`; ${status} [a-z]|statuses: ${status} `));
    expect(instructions).toMatch(/429 too many requests for this key \(wait as Retry-After says\)/);
  });

  it("searches, and the results are the API's, typed", async () => {
    const result = await call("searchResources", { query: "train type:cluster" });
    expect(result.isError).toBeFalsy();
    const { results } = result.structuredContent as SearchResourcesResponse;
    const [first] = results;
    expect(first?.resourceType).toBe("cluster");
    if (first?.resourceType !== "cluster") throw new Error("not a cluster");
    expect(first.cluster.id).toBe("cl-train-01");
    expect(first.score).toBe(60);
    expect(textOf(result)).toMatch(
      /^searchResources: 1 result, best first: projects\/proj-alpha\/clusters\/cl-train-01/,
    );
  });

  it("updates a cluster machine, and the next search shows it", async () => {
    const result = await call("updateClusterMachine", {
      projectId: "proj-alpha",
      id: "cm-alpha-01",
      powerState: "POWERING_OFF",
      priceHr: { value: ".5" },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      id: "cm-alpha-01",
      powerState: "POWERING_OFF",
      priceHr: { value: "0.5" },
    });
    const search = await call("searchResources", { query: "cl-train-01" });
    const [cluster] = (search.structuredContent as SearchResourcesResponse).results;
    if (cluster?.resourceType !== "cluster") throw new Error("not a cluster");
    expect(cluster.cluster.machines?.find((m) => m.id === "cm-alpha-01")).toMatchObject({
      powerState: "POWERING_OFF",
      priceHr: { value: "0.5" },
    });
  });

  it("creates a key that is shown once, and the key works", async () => {
    const result = await call("createApiKey", { apikeyId: "mcp-ci-key" });
    expect(result.isError).toBeFalsy();
    const created = result.structuredContent as { id: string; key: string };
    expect(created.id).toBe("mcp-ci-key");
    expect(textOf(result)).toContain("key: shown only this once");
    const withNewKey = await setup.connect(baseUrl, created.key);
    sessions.push(withNewKey);
    const search = await withNewKey.client.callTool({ name: "searchResources", arguments: { query: "alpha" } });
    expect(search.isError).toBeFalsy();
    expect((search.structuredContent as SearchResourcesResponse).results.length).toBeGreaterThan(0);
  });

  it("refuses an argument the spec refuses, naming it, before sending anything", async () => {
    await stub.clearRequests();
    const bad = await call("createApiKey", { apikeyId: "Not_Valid!" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/nothing was sent/);
    expect(textOf(bad)).toMatch(/^- apikeyId: .*pattern/m);
    const volumes = await call("updateClusterMachine", {
      projectId: "proj-alpha",
      id: "cm-alpha-01",
      volumeIds: ["vol-alpha-data", "bad id"],
      color: "red",
    });
    expect(textOf(volumes)).toMatch(/^- color: unknown argument/m);
    const empty = await call("updateClusterMachine", { projectId: "proj-alpha", id: "cm-alpha-01" });
    expect(textOf(empty)).toMatch(/give at least one of powerState, priceHr, state, volumeIds/);
    const price = await call("updateClusterMachine", {
      projectId: "proj-alpha",
      id: "cm-alpha-01",
      priceHr: { value: "-1" },
    });
    expect(textOf(price)).toMatch(/^- priceHr\.value: /m);
    // The search's own rules, stated in the listed schema's `x-search-terms`.
    const terms = await call("searchResources", { query: "a b c d e f g h i" });
    expect(textOf(terms)).toMatch(/^- query: holds 9 terms besides its `type:` term; at most 8 are allowed/m);
    const types = await call("searchResources", { query: "type:cluster type:volume" });
    expect(textOf(types)).toMatch(/^- query: may hold at most one `type:` term/m);
    expect(await stub.requests()).toEqual([]);
  });

  // Each of these was turned into text and sent (`12345`, `train,alpha`, `[object Object]`), or failed inside.
  it.each<[string, unknown]>([
    ["a number", 12345],
    ["an array", ["train", "alpha"]],
    ["an object", { value: "train" }],
    ["an object with its own toString", { toString: "x" }],
    ["true", true],
    ["null", null],
  ])("refuses %s as the search's query, naming it, and sends nothing", async (_name, query) => {
    await stub.clearRequests();
    const result = await call("searchResources", { query });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^searchResources: the arguments do not match the tool's inputSchema; nothing was sent\./,
    );
    expect(textOf(result)).toMatch(/^- query: must be string \(type\)$/m);
    expect(await stub.requests()).toEqual([]);
  });

  it("refuses wrong types in path and body arguments too, and sends nothing", async () => {
    await stub.clearRequests();
    const result = await call("updateClusterMachine", {
      projectId: 7,
      id: "cm-alpha-01",
      priceHr: ".5",
      volumeIds: "vol-alpha-data",
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^- projectId: must be string \(type\)$/m);
    expect(textOf(result)).toMatch(/^- priceHr: must be object \(type\)$/m);
    expect(textOf(result)).toMatch(/^- volumeIds: must be array \(type\)$/m);
    expect(await stub.requests()).toEqual([]);
  });

  it("answers a 403 with the reason and that retrying will not help", async () => {
    const result = await call("updateClusterMachine", { projectId: "proj-gamma", id: "cm-gamma-01", state: "FAILED" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^updateClusterMachine failed: 403 permission denied on project 'proj-gamma'/);
    expect(textOf(result)).toMatch(/Reason: PERMISSION_DENIED/);
    expect(textOf(result)).toMatch(/retrying will not help/);
  });

  it("answers a 404 naming what was not found", async () => {
    const result = await call("updateClusterMachine", { projectId: "proj-alpha", id: "cm-404", state: "ACTIVE" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^updateClusterMachine failed: 404 .*cm-404/);
  });

  it("answers a 409 with ALREADY_EXISTS", async () => {
    await call("createApiKey", { apikeyId: "mcp-twice" });
    const again = await call("createApiKey", { apikeyId: "mcp-twice" });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/^createApiKey failed: 409 /);
    expect(textOf(again)).toMatch(/Reason: ALREADY_EXISTS/);
    expect(textOf(again)).toMatch(/call again with another apikeyId/);
  });

  it("answers a 429 with when to retry", async () => {
    const limitedSession = await setup.connect(limitedUrl, keys.alice);
    sessions.push(limitedSession);
    const first = await limitedSession.client.callTool({ name: "createApiKey", arguments: { apikeyId: "mcp-rate-1" } });
    expect(first.isError).toBeFalsy();
    const second = await limitedSession.client.callTool({
      name: "createApiKey",
      arguments: { apikeyId: "mcp-rate-2" },
    });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/^createApiKey failed: 429 /);
    expect(textOf(second)).toMatch(/Retry after \d+ s/);
  });

  it("never shows or logs the API key it was started with", async () => {
    await call("searchResources", { query: "alpha" });
    expect(session.logs()).toMatch(/"tool":"searchResources"/);
    expect(session.logs()).not.toContain(keys.alice);
    expect(session.logs()).not.toContain(token);
  });
});
