/**
 * createComputeServer for real: a small in-memory implementation on an ephemeral 127.0.0.1 port, called over
 * HTTP. What the server decides (routing, authentication, validation, error bodies, response checks) is
 * checked here; the stub (built on it) and the Postgres example run the whole contract suite.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { captureLogs } from "@compute-api/test-support";
import express from "express";
import { describe, expect, it } from "vitest";
import { createComputeServer, type Handlers, type ResponseBody } from "../src/index.js";
import { type Caller, closers, handlers, keys, serve } from "./support/server.js";

const patch = (body: unknown) => ({ method: "PATCH", body: JSON.stringify(body) });

describe("createComputeServer", () => {
  it("routes each operation to its handler with the typed inputs and answers 200 with its body", async () => {
    const { call } = await serve();
    const res = await call("/v1/projects/proj-alpha/cluster-machines/cm-1", patch({ powerState: "OFF" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "cm-1", projectId: "proj-alpha", powerState: "OFF" });
    const created = await call("/v1/api-keys", { method: "POST", body: JSON.stringify({ apikeyId: "ci-key" }) });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(await created.json()).toMatchObject({ id: "ci-key", key: "cak_alice-ci-key" });
  });

  it("answers 401 when authenticate resolves undefined, and never calls the handler", async () => {
    let called = false;
    const { call } = await serve({
      handlers: handlers({
        searchResources: () => {
          called = true;
          return { results: [] };
        },
      }),
    });
    const res = await call("/v1/resources/search?query=a", { key: "cak_unknown" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 401 });
    expect((await call("/v1/resources/search?query=a", { headers: { authorization: "Basic eA==" } })).status).toBe(401);
    expect(called).toBe(false);
  });

  it("answers a bad request with the interface's 400 before the handler runs", async () => {
    const { call } = await serve();
    const res = await call("/v1/projects/proj-alpha/cluster-machines/cm-1", patch({ powerState: "HALF_ON" }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: number; details: { fieldViolations?: { field: string }[] }[] };
    expect(body.code).toBe(400);
    expect(JSON.stringify(body.details)).toContain("powerState");
    expect((await call("/v1/resources/search?query=a&q=b")).status).toBe(400);
    expect((await call("/v1/nothing-here")).status).toBe(404);
    expect((await call("/v1/api-keys")).status).toBe(405);
  });

  it("answers a thrown ApiError as it is, and anything else as 500 without its message, logged", async () => {
    const { lines, logger } = captureLogs();
    const { call } = await serve({
      logger,
      handlers: handlers({
        searchResources: () => {
          throw new Error("connection to db-7.internal:5432 refused");
        },
      }),
    });
    expect((await call("/v1/projects/proj-alpha/cluster-machines/cm-9", patch({ powerState: "OFF" }))).status).toBe(
      404,
    );
    const res = await call("/v1/resources/search?query=a");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ code: 500, message: "internal error" });
    expect(text).not.toContain("db-7");
    const failure = lines.find((l) => l.msg === "handler failed");
    expect(failure).toMatchObject({
      operationId: "searchResources",
      err: { message: expect.stringContaining("db-7") },
    });
    // The request line names the operation; no line holds the key.
    expect(
      lines.some(
        (l) => l.operationId === "searchResources" && (l.res as { status: number } | undefined)?.status === 500,
      ),
    ).toBe(true);
    expect(JSON.stringify(lines)).not.toContain("cak_alice-key");
  });

  describe("responses", () => {
    // A search result whose score is over 100: a body the spec does not allow.
    const bad = handlers({
      searchResources: () =>
        ({
          results: [{ resourceType: "project", resourceName: "projects/p", score: 101, project: { id: "p" } }],
        }) as unknown as ResponseBody<"searchResources">,
    });

    it("enforce (the default) answers 500 instead of a body that breaks the spec", async () => {
      const { call, server } = await serve({ handlers: bad });
      const res = await call("/v1/resources/search?query=a");
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ code: 500 });
      expect(server.stats.responseViolations).toBe(0);
    });

    it("report sends it, logs it at warn and counts it", async () => {
      const { lines, logger } = captureLogs();
      const { call, server } = await serve({ handlers: bad, responses: "report", logger });
      const res = await call("/v1/resources/search?query=a");
      expect(res.status).toBe(200);
      expect(((await res.json()) as { results: { score: number }[] }).results[0]?.score).toBe(101);
      expect(server.stats.responseViolations).toBe(1);
      expect(lines.find((l) => l.msg === "response does not match the spec")).toMatchObject({
        level: 40,
        operationId: "searchResources",
      });
      const good = await call("/v1/projects/proj-alpha/cluster-machines/cm-1", patch({ powerState: "OFF" }));
      expect(good.status).toBe(200);
      expect(server.stats.responseViolations).toBe(1);
    });

    it("off sends it unchecked", async () => {
      const { call, server } = await serve({ handlers: bad, responses: "off" });
      expect((await call("/v1/resources/search?query=a")).status).toBe(200);
      expect(server.stats.responseViolations).toBe(0);
    });
  });

  it("serves /healthz and /openapi.json, and the latter only when asked", async () => {
    const on = await serve();
    expect(await (await fetch(`${on.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(((await (await fetch(`${on.url}/openapi.json`)).json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    const off = await serve({ openapi: false });
    expect((await fetch(`${off.url}/openapi.json`)).status).toBe(404);
  });

  it("sends CORS headers only for the origins it is given", async () => {
    const none = await serve();
    const plain = await none.call("/v1/resources/search?query=a", { headers: { origin: "https://app.example" } });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    const some = await serve({ cors: ["https://app.example"] });
    const allowed = await some.call("/v1/resources/search?query=a", { headers: { origin: "https://app.example" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  it("serves adminRoutes before CORS: their answers carry no CORS header, and CORS answers none of their preflights", async () => {
    const admin = express
      .Router()
      .all("/admin", (req, res) => void res.status(req.method === "OPTIONS" ? 403 : 200).end());
    const server = await serve({ cors: ["*"], adminRoutes: admin });
    const origin = { origin: "https://app.example" };
    const read = await server.call("/admin", { headers: origin });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await server.call("/admin", {
      method: "OPTIONS",
      headers: { ...origin, "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(403);
    expect([...preflight.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const api = await server.call("/v1/resources/search?query=a", { headers: origin });
    expect(api.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("refuses to build without a handler for every operation, naming each one missing", async () => {
    const { searchResources: _dropped, ...two } = handlers();
    await expect(
      createComputeServer<Caller>({ authenticate: () => undefined, handlers: two as Handlers<Caller> }),
    ).rejects.toThrow(/no handler for the operation 'searchResources': every operation of the spec needs one/);
    const { updateClusterMachine: _a, createApiKey: _b, ...one } = handlers();
    await expect(
      createComputeServer<Caller>({ authenticate: () => undefined, handlers: one as unknown as Handlers<Caller> }),
    ).rejects.toThrow("no handler for the operations 'updateClusterMachine', 'createApiKey'");
  });

  it("as a router in an app of one's own: serves the spec's paths and leaves the app its own", async () => {
    const server = await createComputeServer<Caller>({ authenticate: (token) => keys[token], handlers: handlers() });
    // A host app with Express's default query parser, which stops at 1,000 pairs.
    const app = express();
    app.get("/hello", (_req, res) => {
      res.send("hello from the host");
    });
    app.use(server.router);
    app.use((_req, res) => {
      res.status(404).send("the host's own 404");
    });
    const http: Server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    closers.push(() => new Promise((resolve) => http.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const auth = { authorization: "Bearer cak_alice-key" };
    expect(await (await fetch(`${url}/hello`)).text()).toBe("hello from the host");
    expect(await (await fetch(`${url}/elsewhere`)).text()).toBe("the host's own 404");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/v1/resources/search?query=a`, { headers: auth })).status).toBe(200);
    const unknown = await fetch(`${url}/v1/nothing-here`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 404 });
    const smuggled = await fetch(`${url}/v1/resources/search?${"&".repeat(1000)}query=a&evil=1`, { headers: auth });
    expect(smuggled.status).toBe(400);
  });
});
