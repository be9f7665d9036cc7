import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { contract } from "./support/contract.js";

describe("checkResponseBody", () => {
  it.each([
    [
      "a valid 500 ErrorBody",
      { operationId: "searchResources", status: 500, body: { code: 500, message: "internal error" } },
      [],
    ],
    [
      "a 503 without message",
      { operationId: "updateClusterMachine", status: 503, body: { code: 503 } },
      [["response.body.message", "required"]],
    ],
    [
      "a 502 with a string code",
      { operationId: "createApiKey", status: 502, body: { code: "502", message: "x" } },
      [["response.body.code", "type"]],
    ],
    [
      "an undocumented 501",
      { operationId: "searchResources", status: 501, body: { code: 501, message: "x" } },
      [["response.status", "undocumented-status"]],
    ],
    [
      "a 404 where the operation has none",
      { operationId: "searchResources", status: 404, body: { code: 404, message: "x" } },
      [["response.status", "undocumented-status"]],
    ],
    [
      "a 200 without body",
      { operationId: "searchResources", status: 200, body: undefined },
      [["response.body", "body"]],
    ],
    ["a valid 200", { operationId: "searchResources", status: 200, body: { results: [] } }, []],
    [
      "a 200 without required results",
      { operationId: "searchResources", status: 200, body: {} },
      [["response.body.results", "required"]],
    ],
  ])("%s", (_name, { operationId, status, body }, want) => {
    expect(contract.checkResponseBody(operationId, status, body).map((v) => [v.field, v.reason])).toEqual(want);
  });

  it("knows which statuses an operation documents", () => {
    expect(contract.documented("updateClusterMachine", 404)).toBe(true);
    expect(contract.documented("searchResources", 404)).toBe(false);
    expect(contract.documented("noSuchOperation", 200)).toBe(false);
  });

  it("never repeats the offending value", () => {
    const secret = "cak_NEVER-SHOWN";
    const text = JSON.stringify(
      contract.checkResponseBody("createApiKey", 500, { code: 500, message: 5, key: secret }),
    );
    expect(text).not.toContain(secret);
  });

  it("holds a search result to its own branch only (the discriminator), naming the field", () => {
    const cluster = { projectId: "p", dataCenterId: "dc", machineTypeId: "t", machineCount: 0 };
    const result = { resourceName: "projects/p/clusters/c", resourceType: "cluster", score: 50, cluster };
    expect(
      contract.checkResponseBody("searchResources", 200, { results: [result] }).map((v) => [v.field, v.reason]),
    ).toEqual([["response.body.results[0].cluster.id", "required"]]);
  });

  it("names a result whose resourceType is no branch", () => {
    const result = { resourceName: "x", resourceType: "spaceship", score: 1 };
    expect(
      contract.checkResponseBody("searchResources", 200, { results: [result] }).map((v) => [v.field, v.reason]),
    ).toEqual([["response.body.results[0]", "discriminator"]]);
  });
});

describe("checkResponse", () => {
  const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
  it.each([
    [
      "a valid JSON body",
      { status: 200, contentType: "application/json; charset=utf-8", body: bytes({ results: [] }) },
      [],
    ],
    [
      "a body that is not JSON",
      { status: 200, contentType: "text/html", body: Buffer.from("<html>") },
      [["response.header.content-type", "content-type"]],
    ],
    [
      "malformed JSON",
      { status: 200, contentType: "application/json", body: Buffer.from('{"results": [') },
      [["response.body", "malformed-json"]],
    ],
    [
      "malformed JSON with an undocumented status",
      { status: 201, contentType: "application/json", body: Buffer.from("{") },
      [
        ["response.status", "undocumented-status"],
        ["response.body", "malformed-json"],
      ],
    ],
    [
      "no body where one is documented",
      { status: 200, contentType: undefined, body: Buffer.alloc(0) },
      [["response.body", "body"]],
    ],
    [
      "compressed bytes read as they came",
      { status: 200, contentType: "application/json", body: gzipSync('{"results":[]}') },
      [["response.body", "malformed-json"]],
    ],
  ])("%s", (_name, response, want) => {
    expect(contract.checkResponse("searchResources", response).map((v) => [v.field, v.reason])).toEqual(want);
  });
});
