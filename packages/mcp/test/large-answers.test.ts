/**
 * Large answers, through the SDK's client against the real stub: a search's results are bounded by the tool's own
 * `limit` (default 10) in the text and in `structuredContent` alike, since hosts give the model one or the other or
 * both; `omitted` and the text say how many were left out; `limit` is checked like any argument and never sent.
 * The stub's `a` finds 34 resources, 16 KB of JSON in each form before the bound.
 */
import type { SearchResourcesResponse } from "@compute-api/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Connected, connectStdio, keys, startStub, type TestStub, textOf } from "./support.js";

type Limited = SearchResourcesResponse & { omitted?: number };

describe("a search's large answer", { timeout: 120_000 }, () => {
  let stub: TestStub;
  let mcp: Connected;
  const search = (args: Record<string, unknown>) => mcp.client.callTool({ name: "searchResources", arguments: args });

  beforeAll(async () => {
    stub = await startStub();
    mcp = await connectStdio(stub.url, keys.alice);
  });
  afterAll(async () => {
    await mcp?.close();
    await stub?.close();
  });

  it("is listed with a tool-only limit, documented, and an omitted count in its output schema", async () => {
    const { tools } = await mcp.client.listTools();
    const tool = tools.find((t) => t.name === "searchResources")!;
    expect(tool.inputSchema.properties?.limit).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 10,
    });
    expect(tool.inputSchema.required).toEqual(["query"]);
    expect(tool.description).toMatch(/`limit` \(1 to 100, default 10\) bounds the results returned, best first/);
    expect(tool.outputSchema?.properties?.omitted).toMatchObject({ type: "integer", minimum: 1 });
    // Only the list answer gets one.
    for (const name of ["updateClusterMachine", "createApiKey"])
      expect(tools.find((t) => t.name === name)?.inputSchema.properties).not.toHaveProperty("limit");
  });

  it("keeps the best 10 by default, in the text and the structured content alike, and counts the others", async () => {
    const all = await search({ query: "a", limit: 100 });
    const everything = all.structuredContent as Limited;
    expect(everything.results).toHaveLength(34);
    expect(everything.omitted).toBeUndefined();
    const bounded = await search({ query: "a" });
    const kept = bounded.structuredContent as Limited;
    expect(kept.results).toEqual(everything.results.slice(0, 10));
    expect(kept.omitted).toBe(24);
    const [summary, json] = textOf(bounded).split("\n");
    expect(summary).toMatch(
      /^searchResources: 34 results, best first; the 10 best are below \(`limit` left out 24: give a larger one, up to 100, or a narrower query\): /,
    );
    expect(JSON.parse(json!)).toEqual(kept);
    // What an agent's context takes: a third of the whole answer, in each form.
    expect(textOf(bounded).length).toBeLessThan(textOf(all).length / 2.5);
    expect(JSON.stringify(kept).length).toBeLessThan(JSON.stringify(everything).length / 2.5);
    expect(JSON.stringify(everything).length).toBeGreaterThan(15_000);
  });

  it("keeps as many as limit says, and all of a shorter answer", async () => {
    const three = (await search({ query: "a", limit: 3 })).structuredContent as Limited;
    expect(three.results).toHaveLength(3);
    expect(three.omitted).toBe(31);
    const short = await search({ query: "type:disk", limit: 3 });
    expect((short.structuredContent as Limited).omitted).toBe(2);
    const disks = (await search({ query: "type:disk" })).structuredContent as Limited;
    expect(disks.results).toHaveLength(5);
    expect(disks).not.toHaveProperty("omitted");
  });

  it("checks limit like any argument, and never sends it", async () => {
    await stub.clearRequests();
    for (const limit of [0, 101, 2.5, "5", null])
      expect(textOf(await search({ query: "a", limit }))).toMatch(/^- limit: must be/m);
    expect(await stub.requests()).toEqual([]);
    await search({ query: "a", limit: 5 });
    const [sent] = await stub.requests();
    expect(sent?.query).toEqual({ query: "a" });
  });
});
