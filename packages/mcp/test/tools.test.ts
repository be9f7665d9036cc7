/**
 * The tools derived from the spec: the committed src/generated/tools.json is what the spec makes now (a stale file
 * fails here as `npm run check:generated` fails), and a change to the spec changes the tools.
 */
import { readFileSync } from "node:fs";
import { loadSpec, type OpenApiDocument, specOperations } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { deriveTools, type McpTool, toolsFileText } from "../src/derive-tools.js";
import { toolTable, withToolTable } from "../src/readme-tools.js";
import { maxDescriptionLength } from "../src/tool-description.js";
import { generatedTools } from "../src/tools.js";

const byName = (name: string): McpTool => {
  const found = generatedTools().tools.find((t) => t.tool.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.tool;
};

describe("the generated tools", () => {
  it("are what the current spec makes (run `npm run build` when this fails)", () => {
    const committed = readFileSync(new URL("../src/generated/tools.json", import.meta.url), "utf8");
    expect(committed).toBe(toolsFileText(loadSpec()));
  });

  it("are listed in the README's table, one row each, as the build writes it (run `npm run build` when this fails)", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(withToolTable(readme, deriveTools(loadSpec()))).toBe(readme);
    const table = toolTable(generatedTools());
    expect(table).toContain("| `searchResources` | `GET /v1/resources/search` | read-only, idempotent |");
    expect(table).toContain(
      "| `createApiKey` | `POST /v1/api-keys` | not read-only, not idempotent, not destructive |",
    );
    expect(table.split("\n")).toHaveLength(2 + generatedTools().tools.length);
    expect(() => withToolTable("# no markers", generatedTools())).toThrow(/markers/);
  });

  it("are one per operation, named by operationId, with the method's annotations", () => {
    const table = generatedTools().tools.map(({ tool, operation }) => [tool.name, operation.method, tool.annotations]);
    expect(table.map(([name]) => name)).toEqual(
      specOperations(loadSpec())
        .map((o) => o.operation.operationId)
        .sort(),
    );
    expect(table).toEqual(
      expect.arrayContaining([
        [
          "createApiKey",
          "POST",
          {
            title: "Create an API key",
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: false,
          },
        ],
        [
          "searchResources",
          "GET",
          {
            title: "Search accessible resources",
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: false,
          },
        ],
        [
          "updateClusterMachine",
          "PATCH",
          {
            title: "Update a cluster machine",
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: true,
            openWorldHint: false,
          },
        ],
      ]),
    );
  });

  it("take one flat object with the spec's constraints inlined", () => {
    const update = byName("updateClusterMachine").inputSchema;
    expect(Object.keys(update.properties as object)).toEqual([
      "projectId",
      "id",
      "powerState",
      "priceHr",
      "state",
      "volumeIds",
    ]);
    expect(update).toMatchObject({
      required: ["projectId", "id"],
      additionalProperties: false,
      // The two path parameters and at least one body field.
      minProperties: 3,
      properties: {
        id: { pattern: "^[A-Za-z0-9][A-Za-z0-9._~-]*$", maxLength: 128, examples: ["cm-alpha-01"] },
        // The shared enum without the value the request's `not` refuses.
        powerState: { enum: ["ON", "OFF", "POWERING_ON", "POWERING_OFF", "REBOOTING"] },
        state: { enum: ["CREATING", "ACTIVE", "DELETING", "FAILED"] },
        priceHr: { additionalProperties: false, properties: { value: { maxLength: 64 } } },
        volumeIds: { maxItems: 64, uniqueItems: true },
      },
    });
    expect(JSON.stringify(update)).not.toMatch(/\$ref|"not"/);
    expect(byName("createApiKey").inputSchema.properties).toMatchObject({
      apikeyId: { minLength: 4, maxLength: 63, pattern: "^[a-z0-9-]+$" },
    });
    expect(byName("searchResources").inputSchema).toMatchObject({
      required: ["query"],
      properties: { query: { minLength: 1, maxLength: 256 } },
    });
  });

  it("return the 200 schema without OpenAPI's own keywords", () => {
    const search = byName("searchResources");
    expect(search.outputSchema).toMatchObject({ type: "object", required: ["results"] });
    const text = JSON.stringify(search.outputSchema);
    expect(text).not.toMatch(/"discriminator"|"int32"|#\/components\//);
    expect(Object.keys(search.outputSchema?.$defs as object)).toContain("ClusterSearchResult");
  });

  // The search's description was 2,696 characters: the spec's whole description with its line breaks, the cost
  // rationale of the term limit, and the eleven statuses that every tool repeated.
  it.each(generatedTools().tools.map(({ tool }) => [tool.name, tool.description] as const))(
    "describe %s for an agent in at most 1,500 characters, without line breaks inside a paragraph or statuses",
    (_name, description) => {
      expect(description.length).toBeLessThanOrEqual(maxDescriptionLength);
      expect(maxDescriptionLength).toBe(1500);
      expect(description).not.toMatch(/[^\n]\n(?!\n)/);
      expect(description).not.toMatch(/\b(401|413|415|502|504)\b|cost/);
    },
  );

  it("say what an agent needs to call the search right", () => {
    const search = byName("searchResources").description;
    expect(search).toMatch(/One term `type:<resourceType>` keeps one type: `billingAccount`, `cluster`/);
    expect(search).toMatch(/At most one `type:` term and 8 others\./);
    expect(search).toMatch(/at most 100 and without pages: narrow the query/);
    expect(search).toMatch(/A cluster's `machines` are its cluster machines/);
  });

  it("of an operation without x-mcp are its summary and description, its lines joined; a long one is refused", () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument & { paths: Record<string, Record<string, unknown>> };
    const create = spec.paths["/v1/api-keys"]?.post as Record<string, unknown>;
    delete create["x-mcp"];
    create.description = "First line\nsecond line.\n\nSecond paragraph.";
    const tool = deriveTools(spec).tools.find((t) => t.tool.name === "createApiKey")?.tool;
    expect(tool?.description).toBe("Create an API key\n\nFirst line second line.\n\nSecond paragraph.");
    create.description = "x".repeat(1500);
    expect(() => deriveTools(spec)).toThrow(
      /^createApiKey \(POST \/v1\/api-keys\): the tool's description has 1519 characters, more than 1500; give the operation a shorter x-mcp\.description/,
    );
  });

  it("change when the spec does", () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument & { paths: Record<string, Record<string, unknown>> };
    const search = spec.paths["/v1/resources/search"]?.get as { operationId: string; summary: string };
    search.operationId = "findResources";
    search.summary = "Find resources";
    const names = deriveTools(spec).tools.map((t) => [t.tool.name, t.tool.title]);
    expect(names).toContainEqual(["findResources", "Find resources"]);
    expect(toolsFileText(spec)).not.toBe(toolsFileText(loadSpec()));
  });

  it("of an operation that answers 204 have no outputSchema, and its success is the lowest 2xx", () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument & { paths: Record<string, Record<string, unknown>> };
    const machine = spec.paths["/v1/projects/{projectId}/cluster-machines/{id}"] as Record<string, unknown>;
    const { requestBody: _body, ...update } = machine.patch as Record<string, unknown> & {
      responses: Record<string, unknown>;
    };
    const { "200": _ok, ...failures } = update.responses;
    machine.delete = {
      ...update,
      operationId: "deleteClusterMachine",
      responses: { "204": { description: "Deleted." }, ...failures },
    };
    const deleted = deriveTools(spec).tools.find((t) => t.tool.name === "deleteClusterMachine");
    expect(deleted?.tool.outputSchema).toBeUndefined();
    expect(deleted?.tool.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(deleted?.operation).toMatchObject({
      method: "DELETE",
      pathParameters: ["projectId", "id"],
      bodyProperties: null,
    });
  });
});
