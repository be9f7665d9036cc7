import type { AddressInfo } from "node:net";
import { loadSpec, type OpenApiDocument, parseQueryString } from "@compute-api/contract";
import express from "express";
import { describe, expect, it } from "vitest";
import { createContractValidator } from "../src/contract-validator.js";
import { errorHandler } from "../src/error-handlers.js";

describe("warmUp", () => {
  it("compiles every operation of the bundled spec", async () => {
    await expect(createContractValidator().warmUp()).resolves.toBeUndefined();
  });

  it("fails with a message naming the operation when the spec does not compile", async () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument;
    const schemas = spec.components.schemas as Record<string, { pattern?: string }>;
    schemas.ResourceId = { ...schemas.ResourceId, pattern: "([unclosed" };
    await expect(createContractValidator({ spec }).warmUp()).rejects.toThrow(
      /does not work with the validator:[\s\S]*PATCH \/v1\/projects/,
    );
  });
});

describe("unknown query parameters", () => {
  it.each([
    [
      "a name starting with a bracket is refused, not silently dropped",
      "/v1/resources/search?query=a&%5Bx%5D=1",
      "[x]",
    ],
    ["a name with a stray bracket is refused, not silently dropped", "/v1/resources/search?query=a&x%5B=1", "x["],
    ["a name in bracket notation is named as sent", "/v1/resources/search?query=a&page%5Bsize%5D=1", "page[size]"],
    ["a plain unknown name is named", "/v1/resources/search?query=a&page=2", "page"],
    ["a name after 1,000 empty pairs is named", `/v1/resources/search?query=a${"&".repeat(1000)}&evil=1`, "evil"],
    ["a bracket name on an operation without query parameters is refused", "/v1/api-keys?%5B%20=1", "[ "],
  ])("%s", async (_name, path, field) => {
    const server = await serveValidator(true);
    try {
      const res = await fetch(`${server.url}${path}`, {
        method: path.startsWith("/v1/api-keys") ? "POST" : "GET",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        ...(path.startsWith("/v1/api-keys") ? { body: '{"apikeyId":"abcd"}' } : {}),
      });
      const body = (await res.json()) as { details?: { fieldViolations?: { field: string; reason?: string }[] }[] };
      expect(res.status).toBe(400);
      expect(body.details?.flatMap((d) => d.fieldViolations ?? [])).toEqual([
        expect.objectContaining({ field, reason: "invalid" }),
      ]);
    } finally {
      server.close();
    }
  });
});

describe("the query parser", () => {
  it("reads every pair in an app whose query parser is Express's default (which stops at 1,000)", async () => {
    const server = await serveValidator(false);
    try {
      const pass = await fetch(`${server.url}/v1/resources/search?query=a`, { headers: { authorization: "Bearer k" } });
      expect(pass.status).toBe(200);
      const smuggled = `${"&".repeat(1000)}query=a&evil=1`;
      const res = await fetch(`${server.url}/v1/resources/search?${smuggled}`, {
        headers: { authorization: "Bearer k" },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain("evil");
    } finally {
      server.close();
    }
  });
});

/** The validator (responses off) on an ephemeral port in front of a handler that answers an empty search; `contractQuery`: the app reads the query with the contract's parser. */
async function serveValidator(contractQuery: boolean): Promise<{ url: string; close(): void }> {
  const validator = createContractValidator({ responses: "off" });
  await validator.warmUp();
  const app = express();
  if (contractQuery) app.set("query parser", parseQueryString);
  app.use(validator.middleware);
  app.use((_req, res) => {
    res.json({ results: [] });
  });
  app.use(errorHandler());
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
