/**
 * The Streamable HTTP transport's guard, spoken to with plain HTTP as a browser or a stray client would: the client
 * token, the Host and Origin checks against DNS rebinding, and the endpoint's methods. And the command line's
 * refusals (exit status 2) before anything starts.
 */
import { request } from "node:http";
import { keepEnvironment } from "@compute-api/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseCommandLine } from "../src/cli.js";
import { type HttpMcp, keys, killStarted, startHttp, startStub, type TestStub } from "./support.js";

const token = "http-test-client-token-0123456789";
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "plain-http", version: "1" } },
});

/** The headers of an MCP client's POST. */
const mcp = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** Sends one request with exactly these headers (Host included), and reads the answer. */
function send(url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("compute-mcp --http", () => {
  let stub: TestStub;
  let server: HttpMcp;
  let host: string;
  beforeAll(async () => {
    stub = await startStub();
    server = await startHttp(stub.url, keys.alice, { COMPUTE_MCP_AUTH_TOKEN: token });
    host = new URL(server.url).host;
  });
  afterAll(async () => {
    await server?.close();
    await stub?.close();
    killStarted();
  });

  it("answers a client with the token", async () => {
    const res = await send(server.url, "POST", { ...mcp, host, authorization: `Bearer ${token}` }, initialize);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ result: { serverInfo: { name: "compute-mcp" } } });
  });

  it("refuses a client without the token, or with another one (such as the service's own key)", async () => {
    for (const authorization of [undefined, `Bearer ${token}x`, `Bearer ${keys.alice}`]) {
      const res = await send(server.url, "POST", { ...mcp, host, ...(authorization && { authorization }) }, initialize);
      expect(res.status).toBe(401);
      expect(res.headers["www-authenticate"]).toBe('Bearer realm="compute-mcp"');
      expect(res.body).not.toContain(token);
    }
  });

  it("refuses a Host or an Origin that is not loopback (DNS rebinding)", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const evilHost = await send(server.url, "POST", { ...mcp, ...auth, host: "evil.example.com" }, initialize);
    expect(evilHost.status).toBe(403);
    const evilOrigin = await send(
      server.url,
      "POST",
      { ...mcp, ...auth, host, origin: "http://evil.example.com" },
      initialize,
    );
    expect(evilOrigin.status).toBe(403);
    const local = await send(server.url, "POST", { ...mcp, ...auth, host, origin: `http://${host}` }, initialize);
    expect(local.status).toBe(200);
  });

  // Protocol 2025-11-25 has no batches; one accepted POST of 100 tools/call made 100 calls to the service.
  it("refuses a JSON-RPC batch with an invalid-request error, and calls nothing", async () => {
    await stub.clearRequests();
    const auth = { authorization: `Bearer ${token}`, host, "mcp-protocol-version": "2025-11-25" };
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "searchResources", arguments: { query: "train" } },
    });
    const batch = JSON.stringify(Array.from({ length: 20 }, (_, i) => call(i + 1)));
    const res = await send(server.url, "POST", { ...mcp, ...auth }, batch);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported/) },
    });
    const single = await send(server.url, "POST", { ...mcp, ...auth }, JSON.stringify([call(1)]));
    expect(single.status).toBe(400);
    expect(await stub.requests()).toEqual([]);
    // One message per POST still works.
    const one = await send(server.url, "POST", { ...mcp, ...auth }, JSON.stringify(call(1)));
    expect(JSON.parse(one.body)).toMatchObject({
      id: 1,
      result: { structuredContent: { results: expect.any(Array) } },
    });
    expect(await stub.requests()).toHaveLength(1);
  });

  it("answers a body that is not JSON with a JSON-RPC parse error", async () => {
    const auth = { authorization: `Bearer ${token}`, host };
    const res = await send(server.url, "POST", { ...mcp, ...auth }, "{not json");
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("takes only POST at /mcp", async () => {
    const auth = { authorization: `Bearer ${token}`, host };
    expect((await send(server.url, "GET", { ...auth, accept: "text/event-stream" })).status).toBe(405);
    expect((await send(server.url, "DELETE", auth)).status).toBe(405);
    expect((await send(new URL("/other", server.url).href, "POST", { ...mcp, ...auth }, initialize)).status).toBe(404);
  });

  it("answers GET /healthz without the token, as a container's probe asks it, but not for another Host", async () => {
    const health = await send(new URL("/healthz", server.url).href, "GET", { host });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });
    expect((await send(new URL("/healthz", server.url).href, "GET", { host: "evil.example.com" })).status).toBe(403);
  });
});

// What a browser sends: a page of https://app.example whose MCP client posts with a bearer token.
describe("compute-mcp --http --cors-origins, to the headers a browser sends", () => {
  const app = "https://app.example";
  let stub: TestStub;
  let server: HttpMcp;
  let host: string;
  const browser = (origin: string) => ({
    host,
    origin,
    "sec-fetch-mode": "cors",
    "sec-fetch-site": "cross-site",
    "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0",
  });
  const preflight = (origin: string, method = "POST") => ({
    ...browser(origin),
    "access-control-request-method": method,
    "access-control-request-headers": "authorization,content-type,mcp-protocol-version,mcp-session-id",
  });
  beforeAll(async () => {
    stub = await startStub();
    server = await startHttp(stub.url, keys.alice, { COMPUTE_MCP_AUTH_TOKEN: token }, ["--cors-origins", app]);
    host = new URL(server.url).host;
  });
  afterAll(async () => {
    await server?.close();
    await stub?.close();
  });

  it("answers the preflight of an allowed origin, without the token, with the transport's methods and headers", async () => {
    for (const method of ["POST", "GET", "DELETE"]) {
      const res = await send(server.url, "OPTIONS", preflight(app, method));
      expect(res.status).toBe(204);
      expect(res.headers).toMatchObject({
        "access-control-allow-origin": app,
        "access-control-allow-methods": "GET,POST,DELETE",
        "access-control-allow-headers": "Content-Type,Authorization,Mcp-Session-Id,MCP-Protocol-Version,Last-Event-ID",
        "access-control-max-age": "600",
        vary: "Origin",
      });
    }
  });

  it("adds CORS headers to its answers, exposing Mcp-Session-Id, a 401's challenge and a 405 included", async () => {
    const auth = { ...mcp, ...browser(app), authorization: `Bearer ${token}` };
    const res = await send(server.url, "POST", auth, initialize);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({
      "access-control-allow-origin": app,
      "access-control-expose-headers": "Mcp-Session-Id,WWW-Authenticate",
    });
    expect(res.headers["mcp-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const noToken = await send(server.url, "POST", { ...mcp, ...browser(app) }, initialize);
    expect(noToken.status).toBe(401);
    expect(noToken.headers["access-control-allow-origin"]).toBe(app);
    const get = await send(server.url, "GET", { ...browser(app), authorization: `Bearer ${token}` });
    expect(get.status).toBe(405);
    expect(get.headers["access-control-allow-origin"]).toBe(app);
  });

  it("refuses another origin's preflight and requests with 403 and no CORS header", async () => {
    const res = await send(server.url, "OPTIONS", preflight("https://evil.example"));
    expect(res.status).toBe(403);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const post = await send(server.url, "POST", { ...mcp, ...browser("https://evil.example") }, initialize);
    expect(post.status).toBe(403);
    expect(post.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("the command line", () => {
  afterEach(keepEnvironment());
  /** What a parse writes on standard error: kept, out of the suite's own output. */
  let err = "";
  const io = { stdout: () => {}, stderr: (text: string) => (err += text) };
  const exitOf = (args: string[]) => {
    try {
      parseCommandLine(args, io);
      return 0;
    } catch (error) {
      return (error as { exitCode?: number }).exitCode;
    }
  };

  it("needs --base-url and an API key", () => {
    process.env.COMPUTE_API_KEY = "cak_x";
    delete process.env.COMPUTE_BASE_URL;
    expect(exitOf([])).toBe(2);
    delete process.env.COMPUTE_API_KEY;
    expect(exitOf(["--base-url", "http://127.0.0.1:4010"])).toBe(2);
    expect(err).toMatch(/^error: --api-key \(or COMPUTE_API_KEY\) is required: the service's key$/m);
  });

  it("refuses --http off loopback without --auth-token, and takes COMPUTE_MCP_AUTH_TOKEN", () => {
    process.env.COMPUTE_API_KEY = "cak_x";
    delete process.env.COMPUTE_MCP_AUTH_TOKEN;
    const args = ["--base-url", "http://127.0.0.1:4010", "--http", "--host", "0.0.0.0"];
    expect(exitOf(args)).toBe(2);
    process.env.COMPUTE_MCP_AUTH_TOKEN = "a-long-random-token";
    expect(parseCommandLine(args, io)).toMatchObject({ http: true, host: "0.0.0.0", authToken: "a-long-random-token" });
    expect(parseCommandLine(["--base-url", "http://127.0.0.1:4010"], io)).toMatchObject({ http: false, port: 4030 });
  });

  it("takes --api-key, with one warning line that never holds the key", () => {
    delete process.env.COMPUTE_API_KEY;
    err = "";
    expect(parseCommandLine(["--base-url", "http://127.0.0.1:4010", "--api-key", "cak_on-the-line"], io)).toMatchObject(
      {
        apiKey: "cak_on-the-line",
      },
    );
    expect(err).toBe(
      "compute-mcp: warning: --api-key on the command line shows in ps and in shell history; prefer COMPUTE_API_KEY\n",
    );
  });

  it.each<[string, string, Partial<ReturnType<typeof parseCommandLine>>]>([
    ["PORT", "4444", { port: 4444 }],
    ["HOST", "localhost", { host: "localhost" }],
    ["TIMEOUT_MS", "1500", { timeoutMs: 1500 }],
    ["SHUTDOWN_GRACE", "1234", { shutdownGraceMs: 1234 }],
    ["SHUTDOWN_TIMEOUT", "5678", { shutdownTimeoutMs: 5678 }],
  ])("still reads %s, with one deprecation line", (name, value, want) => {
    Object.assign(process.env, { COMPUTE_API_KEY: "cak_x", [name]: value });
    err = "";
    expect(parseCommandLine(["--base-url", "http://127.0.0.1:4010"], io)).toMatchObject(want);
    expect(err).toBe(`compute-mcp: ${name} is deprecated; use COMPUTE_MCP_${name}\n`);
  });

  it("still reads --allowed-origins, ALLOWED_ORIGINS and MCP_AUTH_TOKEN, each with one deprecation line", () => {
    Object.assign(process.env, {
      COMPUTE_API_KEY: "cak_x",
      ALLOWED_ORIGINS: "https://env.example",
      MCP_AUTH_TOKEN: "an-old-token",
    });
    err = "";
    const config = parseCommandLine(
      ["--base-url", "http://127.0.0.1:4010", "--allowed-origins", "https://flag.example"],
      io,
    );
    expect(config).toMatchObject({ corsOrigins: ["https://flag.example"], authToken: "an-old-token" });
    expect(err.trim().split("\n")).toEqual([
      "compute-mcp: --allowed-origins is deprecated; use --cors-origins",
      "compute-mcp: ALLOWED_ORIGINS is deprecated; use COMPUTE_MCP_CORS_ORIGINS",
      "compute-mcp: MCP_AUTH_TOKEN is deprecated; use COMPUTE_MCP_AUTH_TOKEN",
    ]);
  });
});
