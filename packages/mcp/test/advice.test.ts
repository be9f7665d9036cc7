/**
 * Each error's advice is a step that works: an agent that meets the failure does what the text says, through the
 * SDK's client against the real stub, and the next call succeeds. The update's 404 once said "check it, for example
 * with searchResources", but a cluster machine is not a search result of its own: searching for its id finds nothing.
 */
import type { IncomingMessage } from "node:http";
import type { SearchResourcesResponse } from "@compute-api/client";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedTools } from "../src/tools.js";
import { type Connected, connectStdio, keys, startStub, type TestStub, textOf } from "./support.js";

type Result = Awaited<ReturnType<Connected["client"]["callTool"]>>;
type Cluster = Extract<SearchResourcesResponse["results"][number], { resourceType: "cluster" }>["cluster"];

const bodyOf = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * A front that passes every request to the stub, except that the answer of the first POST it passes is lost: the
 * stub acts on it, and the client gets a 502, as from a gateway whose upstream connection broke after sending.
 */
async function losingFront(upstream: string): Promise<Listening> {
  let lost = false;
  return listenLocal(async (req, res) => {
    const body = req.method === "POST" ? await bodyOf(req) : undefined;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => ["authorization", "content-type", "accept"].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(new URL(req.url ?? "/", upstream), {
      method: req.method ?? "GET",
      headers,
      ...(body && { body: new Uint8Array(body) }),
    });
    const text = await answer.text();
    if (req.method === "POST" && !lost) {
      lost = true;
      res.writeHead(502, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ code: 502, message: "upstream connection lost after the request" }));
    }
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(text);
  });
}

const clustersOf = (result: Result): Cluster[] =>
  (result.structuredContent as SearchResourcesResponse).results.flatMap((r) =>
    r.resourceType === "cluster" ? [r.cluster] : [],
  );

describe("error advice, followed step by step", { timeout: 120_000 }, () => {
  let stub: TestStub;
  let front: Listening;
  let mcp: Connected;
  let throughFront: Connected;
  const call = (name: string, args: Record<string, unknown>) => mcp.client.callTool({ name, arguments: args });

  beforeAll(async () => {
    stub = await startStub();
    front = await losingFront(stub.url);
    mcp = await connectStdio(stub.url, keys.alice);
    throughFront = await connectStdio(front.url, keys.alice);
  });
  afterAll(async () => {
    await mcp?.close();
    await throughFront?.close();
    await front?.close();
    await stub?.close();
  });

  it("says in the update's description and arguments where its identifiers come from", () => {
    const update = generatedTools().tools.find((t) => t.tool.name === "updateClusterMachine")!.tool;
    expect(update.description).toMatch(/`type:cluster`.*`machines`/s);
    const properties = update.inputSchema.properties as Record<string, { description: string; items?: object }>;
    expect(properties.id?.description).toMatch(/`machines` of its cluster.*`type:cluster`/s);
    expect(properties.projectId?.description).toMatch(/`type:project`/);
    expect(properties.volumeIds?.items).toMatchObject({
      description: expect.stringMatching(/`type:volume`/),
      examples: ["vol-alpha-data"],
    });
  });

  it("after a 404, finds the machine's id as the advice says, and the update then succeeds", async () => {
    const missing = await call("updateClusterMachine", { projectId: "proj-alpha", id: "cm-alpha-99", state: "ACTIVE" });
    expect(missing.isError).toBe(true);
    const advice = textOf(missing);
    expect(advice).toMatch(/^updateClusterMachine failed: 404 /);
    expect(advice).toMatch(/^- id: .*`machines` of its cluster.*`type:cluster`/m);
    // What the advice used to suggest: a search for the id, which finds nothing.
    const byId = await call("searchResources", { query: "cm-alpha-01" });
    expect((byId.structuredContent as SearchResourcesResponse).results).toEqual([]);
    // What it says now: a `type:cluster` search in the project, and the id of one of a cluster's `machines`.
    const clusters = clustersOf(await call("searchResources", { query: "type:cluster proj-alpha" }));
    const machine = clusters.flatMap((c) => c.machines ?? [])[0];
    expect(machine).toBeDefined();
    const updated = await call("updateClusterMachine", { projectId: "proj-alpha", id: machine!.id, state: "ACTIVE" });
    expect(updated.isError).toBeFalsy();
    expect(updated.structuredContent).toMatchObject({ id: machine!.id, state: "ACTIVE" });
  });

  it("after a 403, lists the projects the key can access as the advice says, and works in one of them", async () => {
    const denied = await call("updateClusterMachine", { projectId: "proj-gamma", id: "cm-gamma-01", state: "FAILED" });
    const advice = textOf(denied);
    expect(advice).toMatch(/^updateClusterMachine failed: 403 /);
    expect(advice).toMatch(/^- projectId: .*`type:project`/m);
    const projects = await call("searchResources", { query: "type:project" });
    const ids = (projects.structuredContent as SearchResourcesResponse).results.map((r) => r.resourceName);
    expect(ids).not.toContain("projects/proj-gamma");
    expect(ids).toContain("projects/proj-beta");
    const [cluster] = clustersOf(await call("searchResources", { query: "type:cluster proj-beta" }));
    const machine = cluster?.machines?.[0];
    const updated = await call("updateClusterMachine", { projectId: "proj-beta", id: machine!.id, state: "FAILED" });
    expect(updated.isError).toBeFalsy();
  });

  it("after a 400 for an unknown volume, finds the project's volumes as the advice says, and attaches them", async () => {
    // The example the tool once showed for a volume's id was a project's id.
    const wrong = await call("updateClusterMachine", {
      projectId: "proj-alpha",
      id: "cm-alpha-01",
      volumeIds: ["proj-alpha"],
    });
    const advice = textOf(wrong);
    expect(advice).toMatch(/^updateClusterMachine failed: 400 /);
    expect(advice).toMatch(/^- volumeIds\[0\]: no volume 'proj-alpha' in project 'proj-alpha'/m);
    expect(advice).toMatch(/^- volumeIds\[\]: .*`type:volume`/m);
    const volumes = await call("searchResources", { query: "type:volume proj-alpha" });
    const volumeIds = (volumes.structuredContent as SearchResourcesResponse).results.flatMap((r) =>
      r.resourceType === "volume" ? [r.volume.id] : [],
    );
    expect(volumeIds).toContain("vol-alpha-data");
    const attached = await call("updateClusterMachine", { projectId: "proj-alpha", id: "cm-alpha-01", volumeIds });
    expect(attached.isError).toBeFalsy();
    expect(attached.structuredContent).toMatchObject({ volumeIds });
  });

  it("after a 409, creates the key under another apikeyId as the advice says", async () => {
    expect((await call("createApiKey", { apikeyId: "advice-twice" })).isError).toBeFalsy();
    const again = await call("createApiKey", { apikeyId: "advice-twice" });
    expect(textOf(again)).toMatch(/^It exists already: call again with another apikeyId\.$/m);
    expect(textOf(again)).toMatch(/^- apikeyId: .*4 to 63 characters/m);
    expect((await call("createApiKey", { apikeyId: "advice-twice-2" })).isError).toBeFalsy();
  });

  it("after a lost answer to a create, tells by calling again whether the first call was applied", async () => {
    const lost = await throughFront.client.callTool({ name: "createApiKey", arguments: { apikeyId: "advice-lost" } });
    const advice = textOf(lost);
    expect(advice).toMatch(/^createApiKey failed: 502 /);
    expect(advice).toMatch(/Call it again later with the same arguments: an answer of 409 \(already exists\) means/);
    expect(advice).not.toMatch(/search/);
    const again = await throughFront.client.callTool({ name: "createApiKey", arguments: { apikeyId: "advice-lost" } });
    // The stub had created it: the 409 says so, and its advice leads to a key that can be stored.
    expect(textOf(again)).toMatch(/^createApiKey failed: 409 /);
    const created = await throughFront.client.callTool({
      name: "createApiKey",
      arguments: { apikeyId: "advice-lost-2" },
    });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ id: "advice-lost-2", key: expect.stringMatching(/^cak_/) });
  });

  it("after a failed search or update, says that calling again is safe instead of asking to search", async () => {
    await stub.faults({ faults: "500=100%" });
    try {
      const search = await call("searchResources", { query: "alpha" });
      expect(textOf(search)).toMatch(/^Nothing was changed \(this tool only reads\); call it again later\.$/m);
      const update = await call("updateClusterMachine", {
        projectId: "proj-alpha",
        id: "cm-alpha-01",
        state: "ACTIVE",
      });
      expect(textOf(update)).toMatch(/^Calling it again with the same arguments is safe/m);
    } finally {
      await stub.faults({ faults: null });
    }
  });
});
