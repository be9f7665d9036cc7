/**
 * Requests through the gateway: invalid ones are answered by the gateway and never reach the upstream (which
 * counts what it gets); valid ones arrive as sent, with hop-by-hop headers removed and X-Forwarded-* and
 * x-request-id added.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { send } from "./support/client.js";
import { auth, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

let upstream: TestUpstream;
let gateway: TestGateway;
let passthrough: TestGateway;

beforeAll(async () => {
  upstream = await testUpstream();
  gateway = await testGateway({ upstream: upstream.url, maxBodyBytes: 4096 });
  passthrough = await testGateway({ upstream: upstream.url, passthroughUnknown: true });
});
afterAll(async () => {
  await gateway.close();
  await passthrough.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

const json = { ...auth, "content-type": "application/json" };
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** Invalid requests, the status the gateway answers, and a field violation it must name (400 only). */
const invalid: [
  string,
  {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    status: number;
    field?: string;
  },
][] = [
  [
    "an unknown body field",
    {
      method: "PATCH",
      path: machine,
      headers: json,
      body: '{"powerState":"POWERING_ON","colour":"red"}',
      status: 400,
      field: "colour",
    },
  ],
  ["an empty PATCH body", { method: "PATCH", path: machine, headers: json, body: "{}", status: 400 }],
  [
    "a duplicate volume id",
    {
      method: "PATCH",
      path: machine,
      headers: json,
      body: '{"volumeIds":["v-1","v-1"]}',
      status: 400,
      field: "volumeIds[1]",
    },
  ],
  [
    "malformed JSON",
    { method: "POST", path: "/v1/api-keys", headers: json, body: '{"apikeyId":', status: 400, field: "" },
  ],
  [
    "a bad apikeyId",
    {
      method: "POST",
      path: "/v1/api-keys",
      headers: json,
      body: '{"apikeyId":"UPPER"}',
      status: 400,
      field: "apikeyId",
    },
  ],
  ["a missing query", { method: "GET", path: "/v1/resources/search", headers: auth, status: 400, field: "query" }],
  [
    "a search of 9 terms (the spec's x-search-terms allows 8 besides the type: term)",
    {
      method: "GET",
      path: `/v1/resources/search?query=${"a%20".repeat(8)}a`,
      headers: auth,
      status: 400,
      field: "query",
    },
  ],
  [
    "a search of two type: terms",
    {
      method: "GET",
      path: "/v1/resources/search?query=a%20type:disk%20TYPE:cluster",
      headers: auth,
      status: 400,
      field: "query",
    },
  ],
  [
    "an unknown query parameter",
    { method: "GET", path: "/v1/resources/search?query=a&page=2", headers: auth, status: 400, field: "page" },
  ],
  [
    "a bad path identifier",
    {
      method: "PATCH",
      path: "/v1/projects/-bad/cluster-machines/cm-1",
      headers: json,
      body: '{"state":"ACTIVE"}',
      status: 400,
      field: "projectId",
    },
  ],
  ["no Authorization header", { method: "GET", path: "/v1/resources/search?query=a", status: 401 }],
  [
    "a Basic Authorization header",
    {
      method: "GET",
      path: "/v1/resources/search?query=a",
      headers: { authorization: "Basic dXNlcjpwYXNz" },
      status: 401,
    },
  ],
  ["an unknown path", { method: "GET", path: "/v1/clusters", headers: auth, status: 404 }],
  ["a method the path does not have", { method: "DELETE", path: "/v1/api-keys", headers: auth, status: 405 }],
  [
    "a body over the limit",
    { method: "POST", path: "/v1/api-keys", headers: json, body: `{"apikeyId":"${"a".repeat(5000)}"}`, status: 413 },
  ],
  [
    "a body that is not JSON",
    {
      method: "POST",
      path: "/v1/api-keys",
      headers: { ...auth, "content-type": "text/plain" },
      body: "apikeyId=abcd",
      status: 415,
    },
  ],
];

describe.each(invalid)("a request with %s", (_name, { status, field, ...request }) => {
  it(`is answered ${status} by the gateway with the error body and never reaches the upstream`, async () => {
    const res = await send(gateway.url, request);
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const body = JSON.parse(res.body.toString()) as {
      code: number;
      message: string;
      details?: { fieldViolations?: { field: string }[] }[];
    };
    expect(body.code).toBe(status);
    expect(body.message).toEqual(expect.any(String));
    if (field !== undefined)
      expect(body.details?.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field)).toContain(field);
    expect(upstream.received).toHaveLength(0);
  });
});

describe("a valid request", () => {
  it("reaches the upstream with method, path, query and body bytes as sent, and the key untouched", async () => {
    const body = '{ "volumeIds" : [ "vol-a", "vol-b" ],\n  "priceHr": {"value": "2.50"} }';
    upstream.answer = (_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"id":"cm-alpha-01","projectId":"proj-alpha"}');
    const res = await send(gateway.url, { method: "PATCH", path: machine, headers: json, body });
    expect(res.status).toBe(200);
    const [got] = upstream.received;
    expect(got?.method).toBe("PATCH");
    expect(got?.url).toBe(machine);
    expect(got?.body.toString()).toBe(body);
    expect(got?.headers.authorization).toBe(auth.authorization);

    await send(gateway.url, { path: "/v1/resources/search?query=train%20type%3Acluster", headers: auth });
    expect(upstream.received[1]?.url).toBe("/v1/resources/search?query=train%20type%3Acluster");
  });

  it("loses its hop-by-hop headers and gains X-Forwarded-For/-Proto/-Host and x-request-id", async () => {
    upstream.answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
    await send(gateway.url, {
      path: "/v1/resources/search?query=a",
      headers: {
        ...auth,
        connection: "keep-alive, x-private-hop",
        "x-private-hop": "1",
        "keep-alive": "timeout=5",
        te: "trailers",
        "proxy-authorization": "Basic eA==",
        "x-custom": "kept",
        "x-forwarded-for": "203.0.113.7",
      },
    });
    const headers = upstream.received[0]?.headers ?? {};
    expect(headers["x-private-hop"]).toBeUndefined();
    expect(headers["keep-alive"]).toBeUndefined();
    expect(headers.te).toBeUndefined();
    expect(headers["proxy-authorization"]).toBeUndefined();
    expect(headers["x-custom"]).toBe("kept");
    expect(headers["x-forwarded-for"]).toBe("203.0.113.7, 127.0.0.1");
    expect(headers["x-forwarded-proto"]).toBe("http");
    expect(headers["x-forwarded-host"]).toBe(`127.0.0.1:${gateway.port}`);
    expect(headers.host).toBe(`127.0.0.1:${upstream.port}`);
    expect(headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("propagates the caller's x-request-id upstream and back", async () => {
    upstream.answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
    const res = await send(gateway.url, {
      path: "/v1/resources/search?query=a",
      headers: { ...auth, "x-request-id": "req-42.a" },
    });
    expect(upstream.received[0]?.headers["x-request-id"]).toBe("req-42.a");
    expect(res.headers["x-request-id"]).toBe("req-42.a");
  });

  it("with a gzip body is forwarded decompressed, without Content-Encoding", async () => {
    upstream.answer = (_req, res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"id":"k","createTime":"2026-11-22T08:00:00Z","key":"cak_x"}');
    const res = await send(gateway.url, {
      method: "POST",
      path: "/v1/api-keys",
      headers: { ...json, "content-encoding": "gzip" },
      body: gzipSync('{"apikeyId":"gz-key"}'),
    });
    expect(res.status).toBe(200);
    expect(upstream.received[0]?.body.toString()).toBe('{"apikeyId":"gz-key"}');
    expect(upstream.received[0]?.headers["content-encoding"]).toBeUndefined();
  });
});

describe("--passthrough-unknown", () => {
  it.each([
    ["an unknown path", "GET", "/v1/clusters?page=2"],
    ["a method the path does not have", "DELETE", "/v1/api-keys/ci-key"],
    ["a path outside /v1", "POST", "/internal/reindex"],
  ])("forwards %s unvalidated and counts it", async (_name, method, path) => {
    upstream.answer = (_req, res) =>
      res.writeHead(299, { "content-type": "text/plain", "x-upstream": "yes" }).end("anything goes");
    const res = await send(passthrough.url, { method, path, body: "raw body" });
    expect(res.status).toBe(299);
    expect(res.body.toString()).toBe("anything goes");
    expect(upstream.received[0]).toMatchObject({ method, url: path });
    expect(upstream.received[0]?.body.toString()).toBe("raw body");
    const metrics = await (await fetch(`${passthrough.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`gateway_passthrough_requests_total\\{method="${method}"\\} [1-9]`));
  });

  it("keeps the Content-Length of a HEAD answer, which has no body", async () => {
    upstream.answer = (_req, res) =>
      res.writeHead(200, { "content-type": "application/json", "content-length": 123 }).end();
    const res = await send(passthrough.url, { method: "HEAD", path: "/v1/status" });
    expect(res.status).toBe(200);
    expect(res.headers["content-length"]).toBe("123");
  });

  it.each([
    ["a trailing slash", "/v1/resources/search/?query=a"],
    ["other letter case", "/V1/Resources/Search"],
  ])("still validates a spec path written with %s", async (_name, path) => {
    const res = await send(passthrough.url, { path });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(upstream.received).toHaveLength(0);
  });

  it("still refuses an invalid request to a known operation", async () => {
    const res = await send(passthrough.url, { path: "/v1/resources/search?query=a" });
    expect(res.status).toBe(401);
    expect(upstream.received).toHaveLength(0);
  });
});
