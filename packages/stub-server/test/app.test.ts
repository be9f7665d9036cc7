/**
 * The app's wiring, with one real stub for the file: routes outside /v1, CORS, and one error shape for every
 * failure the validator, the body parser or the router produce. Every error body is checked against ErrorBody.
 */
import { loadSpec } from "@compute-api/contract";
import { expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createApp } from "../src/index.js";
import { json, reasons, startTestStub, type TestStub, violations } from "./support/stub.js";

let stub: TestStub;
beforeAll(async () => {
  stub = await startTestStub({ corsOrigins: ["http://allowed.example"] });
});
afterAll(() => stub.close());

describe("routes outside /v1", () => {
  it("answers /healthz without a key", async () => {
    const res = await stub.call("/healthz", { as: null });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("serves the bundled spec as JSON and YAML", async () => {
    const asJson = await stub.call("/openapi.json", { as: null });
    const asYaml = await stub.call("/openapi.yaml", { as: null });
    expect(asYaml.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(await asJson.json()).toEqual(loadSpec());
    expect(parseYaml(await asYaml.text())).toEqual(loadSpec());
  });

  it("serves the HTML reference at /docs", async () => {
    const res = await stub.call("/docs", { as: null });
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("Compute service API");
  });
});

describe("authentication", () => {
  const cases: [string, { authorization: string | undefined; message: RegExp }][] = [
    ["no Authorization header", { authorization: undefined, message: /Authorization header required/ }],
    ["another scheme", { authorization: "Basic YWxpY2U6c2VjcmV0", message: /Bearer/ }],
    ["a malformed bearer token", { authorization: "Bearer not a token", message: /Bearer <API key>/ }],
    ["an unknown key", { authorization: "Bearer cak_unknown-key-value", message: /not valid/ }],
  ];
  it.each(cases)("answers 401 for %s", async (_name, { authorization, message }) => {
    const res = await stub.call("/v1/resources/search?query=alpha", {
      as: null,
      headers: authorization ? { authorization } : {},
    });
    const body = await expectErrorBody(res, 401);
    expect(body.message).toMatch(message);
    expect(reasons(body)).toEqual(["UNAUTHENTICATED"]);
    expect(JSON.stringify(body)).not.toContain("unknown-key-value");
  });

  it("accepts the scheme name in any case", async () => {
    const res = await stub.call("/v1/resources/search?query=alpha", {
      as: null,
      headers: { authorization: `bearer ${stub.keys.alice}` },
    });
    expect(res.status).toBe(200);
  });
});

describe("one error shape", () => {
  it("answers a method the path does not have with 405 and Allow", async () => {
    const res = await stub.call("/v1/projects/proj-alpha/cluster-machines/cm-alpha-01", { method: "GET" });
    expect(res.headers.get("allow")).toBe("PATCH");
    expect(reasons(await expectErrorBody(res, 405))).toEqual(["METHOD_NOT_ALLOWED"]);
  });

  it("answers a body over 1 MiB with 413", async () => {
    const res = await stub.call("/v1/api-keys", {
      method: "POST",
      body: JSON.stringify({ apikeyId: "x".repeat(1024 * 1024) }),
    });
    await expectErrorBody(res, 413);
  });

  it("answers a body that is not JSON with 415", async () => {
    const res = await stub.call("/v1/api-keys", {
      method: "POST",
      body: "apikeyId=abcd",
      headers: { "content-type": "text/plain" },
    });
    await expectErrorBody(res, 415);
  });

  it("answers malformed JSON with 400 naming the body as a whole", async () => {
    const body = await expectErrorBody(await stub.call("/v1/api-keys", { method: "POST", body: '{"apikeyId":' }), 400);
    expect(violations(body)).toEqual([{ field: "", description: "body is not valid JSON", reason: "malformed-json" }]);
  });

  it.each(["/v1/clusters", "/nothing-here", "/v1/projects/proj-alpha/cluster-machines"])(
    "answers the unknown route %s with 404",
    async (path) => {
      await expectErrorBody(await stub.call(path), 404);
    },
  );

  it("answers invalid parameters with one violation per problem", async () => {
    const res = await stub.call(
      "/v1/projects/-bad/cluster-machines/cm-alpha-01",
      json("PATCH", { powerState: "SIDEWAYS", extra: 1 }),
    );
    const fields = violations(await expectErrorBody(res, 400)).map((v) => v.field);
    expect(fields.sort()).toEqual(["extra", "powerState", "projectId"]);
  });

  it("answers an unknown query parameter with 400", async () => {
    const body = await expectErrorBody(await stub.call("/v1/resources/search?query=alpha&page=2"), 400);
    expect(violations(body).map((v) => v.field)).toEqual(["page"]);
  });

  it("answers headers over Node's size limit with 431 and the error body, not Node's empty answer", async () => {
    const res = await stub.call("/v1/resources/search?query=alpha", { headers: { "x-padding": "a".repeat(20_000) } });
    expect(reasons(await expectErrorBody(res, 431))).toEqual(["HEADERS_TOO_LARGE"]);
  });

  it("answers a path segment that does not decode with 400, never echoing the path as a field", async () => {
    const body = await expectErrorBody(
      await stub.call("/v1/projects/proj%FF/cluster-machines/cm-alpha-01", json("PATCH", { state: "ACTIVE" })),
      400,
    );
    expect(reasons(body)).toEqual(["MALFORMED_URI"]);
    expect(JSON.stringify(body)).not.toContain("%FF");
  });

  it("never answers with HTML or a stack trace", async () => {
    const res = await stub.call("/v1/api-keys", { method: "POST", body: "{not json" });
    const text = await res.text();
    expect(text).not.toMatch(/<html|at .*\.(ts|js):\d+/i);
  });
});

describe("CORS", () => {
  it("answers a preflight from an allowed origin before validation", async () => {
    const res = await stub.call("/v1/projects/proj-alpha/cluster-machines/cm-alpha-01", {
      as: null,
      method: "OPTIONS",
      headers: {
        origin: "http://allowed.example",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://allowed.example");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(res.headers.get("access-control-allow-headers")).toBe("authorization,content-type");
  });

  it("allows an allowed origin to read answers, errors included", async () => {
    const ok = await stub.call("/v1/resources/search?query=alpha", { headers: { origin: "http://allowed.example" } });
    const denied = await stub.call("/v1/resources/search?query=alpha", {
      as: null,
      headers: { origin: "http://allowed.example" },
    });
    expect([ok.headers.get("access-control-allow-origin"), denied.headers.get("access-control-allow-origin")]).toEqual([
      "http://allowed.example",
      "http://allowed.example",
    ]);
    expect(ok.headers.get("access-control-expose-headers")).toContain("x-request-id");
  });

  it("gives other origins no CORS headers", async () => {
    const res = await stub.call("/v1/resources/search?query=alpha", { headers: { origin: "http://evil.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("request log", () => {
  it("writes one line per request with method, path, operationId, status and duration", async () => {
    const res = await stub.call("/v1/resources/search?query=cl-train-01", {
      headers: { "x-request-id": "log-line-test" },
    });
    expect(res.headers.get("x-request-id")).toBe("log-line-test");
    await res.arrayBuffer();
    await expect.poll(() => stub.logs.filter((l) => l.includes("log-line-test")).length).toBe(1);
    const line = JSON.parse(stub.logs.find((l) => l.includes("log-line-test")) ?? "{}");
    expect(line).toMatchObject({
      req: { method: "GET", path: "/v1/resources/search" },
      operationId: "searchResources",
      res: { status: 200 },
      durationMs: expect.any(Number),
    });
  });

  it("never logs the Authorization header or a key, created or refused", async () => {
    const created = (await (await stub.call("/v1/api-keys", json("POST", { apikeyId: "log-check" }))).json()) as {
      key: string;
    };
    await stub.call("/v1/resources/search?query=alpha", {
      as: null,
      headers: { authorization: "Bearer cak_refused-key-value" },
    });
    await stub.call("/v1/resources/search?query=alpha", {
      as: null,
      headers: { authorization: `Bearer ${created.key}` },
    });
    await expect.poll(() => stub.logs.some((l) => l.includes("createApiKey"))).toBe(true);
    const all = stub.logs.join("\n");
    for (const secret of [created.key, "cak_refused-key-value", ...Object.values(stub.keys)])
      expect(all).not.toContain(secret);
    expect(all.toLowerCase()).not.toContain("bearer");
  });
});

describe("start-up", () => {
  it("stops with a message when the spec does not compile, rather than answering 500 per request", async () => {
    const spec = structuredClone(loadSpec());
    delete (spec.components.schemas as Record<string, unknown>).Cluster;
    await expect(createApp({ spec })).rejects.toThrow(/Cluster/);
  });
});
