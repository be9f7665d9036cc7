import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { createContractValidator, errorHandler } from "../src/contract-validator.js";

describe("warmUp", () => {
  it("compiles every operation of the bundled spec", async () => {
    await expect(createContractValidator().warmUp()).resolves.toBeUndefined();
  });

  it("fails with a message naming the operation when the spec does not compile", async () => {
    const spec = structuredClone(loadSpec()) as OpenApiDocument;
    const schemas = spec.components["schemas"] as Record<string, { pattern?: string }>;
    schemas["ResourceId"] = { ...schemas["ResourceId"], pattern: "([unclosed" };
    await expect(createContractValidator({ spec }).warmUp()).rejects.toThrow(/does not work with the validator:[\s\S]*PATCH \/v1\/projects/);
  });
});

describe("unknown query parameters", () => {
  it.each([
    ["a name starting with a bracket is refused, not silently dropped", "/v1/resources/search?query=a&%5Bx%5D=1", "[x]"],
    ["a name with a stray bracket is refused, not silently dropped", "/v1/resources/search?query=a&x%5B=1", "x["],
    ["a name in bracket notation is named as sent", "/v1/resources/search?query=a&page%5Bsize%5D=1", "page[size]"],
    ["a plain unknown name is named", "/v1/resources/search?query=a&page=2", "page"],
    ["a bracket name on an operation without query parameters is refused", "/v1/api-keys?%5B%20=1", "[ "],
  ])("%s", async (_name, path, field) => {
    const validator = createContractValidator({ responses: "off" });
    await validator.warmUp();
    const app = express();
    app.use(validator.middleware);
    app.use((_req, res) => {
      res.json({ results: [] });
    });
    app.use(errorHandler());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, {
        method: path.startsWith("/v1/api-keys") ? "POST" : "GET",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        ...(path.startsWith("/v1/api-keys") ? { body: '{"apikeyId":"abcd"}' } : {}),
      });
      const body = (await res.json()) as { details?: { fieldViolations?: { field: string; reason?: string }[] }[] };
      expect(res.status).toBe(400);
      expect(body.details?.flatMap((d) => d.fieldViolations ?? [])).toEqual([expect.objectContaining({ field, reason: "invalid" })]);
    } finally {
      server.close();
    }
  });
});
