/**
 * What a red-team pass found the gateway forwarding or failing on: query parameters hidden past node:querystring's
 * default of 1,000 pairs, a large invalid array that answered 500 and held the event loop, and a body sent to an
 * operation that takes none. Each is answered 400 by the gateway, and the backend receives nothing. With
 * --passthrough-unknown, targets a backend would resolve to a spec path; slow bodies that held sockets and the
 * upstream pool; and metric labels that grew with whatever statuses the backend sent.
 */
import { once } from "node:events";
import { request, type Server } from "node:http";
import { connect } from "node:net";
import { type FieldViolation, maxFieldViolations } from "@compute-api/contract";
import { createLogger } from "@compute-api/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../src/index.js";
import { type RawResponse, send } from "./support/client.js";
import { auth, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

let upstream: TestUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await testUpstream();
  gateway = await testGateway({ upstream: upstream.url });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

const json = { ...auth, "content-type": "application/json" };
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
const violations = (res: RawResponse): FieldViolation[] =>
  ((JSON.parse(res.body.toString()) as { details?: { fieldViolations?: FieldViolation[] }[] }).details ?? []).flatMap(
    (d) => d.fieldViolations ?? [],
  );

describe("a query past 1,000 pairs (empty ones count for node:querystring) is checked whole", () => {
  it.each([
    [
      "a bad query and an undeclared parameter after 1,000 `&`",
      `query=ok${"&".repeat(1000)}&query=%01%02&evil=1`,
      "query",
    ],
    ["an undeclared parameter after 1,000 `&`", `query=ok${"&".repeat(1000)}&evil=1`, "evil"],
  ])("%s: 400 naming it, and the backend receives nothing", async (_name, search, field) => {
    const res = await send(gateway.url, { path: `/v1/resources/search?${search}`, headers: auth });
    expect(res.status).toBe(400);
    expect(violations(res).map((v) => v.field)).toEqual([field]);
    expect(upstream.received).toHaveLength(0);
  });
});

describe("130,000 invalid volume ids (maxItems is 64)", () => {
  const body = JSON.stringify({ volumeIds: Array.from({ length: 130_000 }, () => "!") });

  it(`is 400 with at most ${maxFieldViolations} violations, not a 500 from a stack overflow`, async () => {
    const res = await send(gateway.url, { method: "PATCH", path: machine, headers: json, body });
    expect(res.status).toBe(400);
    expect(violations(res).length).toBeGreaterThan(0);
    expect(violations(res).length).toBeLessThanOrEqual(maxFieldViolations);
    expect(upstream.received).toHaveLength(0);
  });

  it("leaves the event loop free: each of ten in flight costs one maxItems check, not an error per item (it took seconds), and /healthz answers meanwhile", async () => {
    let done = false;
    const answers = Promise.all(
      Array.from({ length: 10 }, () => send(gateway.url, { method: "PATCH", path: machine, headers: json, body })),
    ).finally(() => (done = true));
    do expect((await send(gateway.url, { path: "/healthz" })).status).toBe(200);
    while (!done);
    const answered = await answers;
    expect(answered.map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 400));
    // The work each took: the size bound failed and the 130,000 items were never looked at one by one.
    for (const res of answered)
      expect(violations(res).map((v) => [v.field, v.reason])).toEqual([["volumeIds", "maxItems"]]);
  });
});

describe("a body on an operation that takes none", () => {
  const smuggled =
    "GET /v1/resources/search?query=smuggled HTTP/1.1\r\nHost: upstream\r\nAuthorization: Bearer test-key_123\r\n\r\n";
  it.each([
    [
      "a second request as the body, framed by Content-Length",
      { ...auth, "content-length": String(smuggled.length) },
      smuggled,
    ],
    ["a chunked body", { ...auth, "transfer-encoding": "chunked" }, smuggled],
    ["a JSON body", json, '{"query":"a"}'],
  ])("%s: 400, and the backend receives nothing", async (_name, headers: Record<string, string>, body) => {
    const res = await send(gateway.url, { path: "/v1/resources/search?query=a", headers, body });
    expect(res.status).toBe(400);
    expect(violations(res)).toEqual([
      { field: "", description: "this operation takes no request body", reason: "body" },
    ]);
    expect(upstream.received).toHaveLength(0);
  });
});

describe("--passthrough-unknown: the target the backend will see is the one checked", () => {
  let passthrough: TestGateway;
  beforeAll(async () => {
    passthrough = await testGateway({ upstream: upstream.url, passthroughUnknown: true });
  });
  afterAll(() => passthrough.close());

  it.each([
    ["absolute-form", "http://evil.example/v1/api-keys"],
    ["dot segments", "/v1/x/../api-keys"],
    ["percent-encoded dot segments", "/v1/x/%2e%2E/api-keys"],
    ["dot segments above the root", "/../v1/./api-keys"],
  ])("%s resolving to a spec path: validated as that operation (400), never forwarded", async (_name, path) => {
    const res = await sendTarget(passthrough.port, "POST", path, json, '{"evil":1}');
    expect(res.status).toBe(400);
    expect(res.body).toContain('"field":"evil"');
    expect(upstream.received).toHaveLength(0);
  });

  it("a target that resolves outside the spec is forwarded as resolved", async () => {
    const res = await send(passthrough.url, { path: "/v1/unknown/../other?x=1", headers: auth });
    expect(res.status).toBe(200);
    expect(upstream.received.map((r) => r.url)).toEqual(["/v1/other?x=1"]);
  });

  it.each([
    ["a raw fragment", "/v1/other#x"],
    ["a backslash", "/v1\\api-keys"],
  ])("%s: 400 INVALID_REQUEST_TARGET, never forwarded", async (_name, path) => {
    const res = await sendTarget(passthrough.port, "GET", path, auth);
    expect(res.status).toBe(400);
    expect(res.body).toContain("INVALID_REQUEST_TARGET");
    expect(upstream.received).toHaveLength(0);
  });
});

/** Sends a request with its target exactly as given (fetch and URL would resolve it first). */
function sendTarget(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** How many connections `server` holds. */
function connectionsOf(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** Sends request headers announcing `length` body bytes, then one byte every `everyMs`; resolves with what came back. */
async function trickle(
  port: number,
  path: string,
  length: number,
  everyMs: number,
): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  const socket = connect({ host: "127.0.0.1", port });
  await once(socket, "connect");
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: gateway\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`,
  );
  const timer = setInterval(() => socket.writable && socket.write(" "), everyMs);
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    text += chunk;
  });
  socket.on("error", () => {});
  await once(socket, "close");
  clearInterval(timer);
  return { text, ms: Date.now() - started };
}

describe("slow peers", () => {
  let server: Server;
  let port: number;
  let slow: Gateway;
  let answer: TestUpstream["answer"];
  beforeAll(async () => {
    answer = upstream.answer;
    upstream.answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
    slow = await createGateway({
      upstream: upstream.url,
      passthroughUnknown: true,
      requestTimeoutMs: 1000,
      connections: 2,
      logger: createLogger({ level: "silent" }),
    });
    server = slow.app.listen(0, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await slow.close();
    upstream.answer = answer;
  });

  it("a body trickled at 5 bytes/s is answered 408 with the error body at the request timeout, not held for minutes", async () => {
    const { text, ms } = await trickle(port, machine, 1000, 200);
    expect(text).toMatch(/^HTTP\/1\.1 408 [\s\S]*"REQUEST_TIMEOUT"/);
    // Its whole body would take 200 s: the answer came at the timeout (1 s), however busy the machine.
    expect(ms).toBeLessThan(20_000);
    expect(upstream.received).toHaveLength(0);
  });

  it("passthrough bodies still arriving take no upstream connection: a search is answered while they trickle", async () => {
    // Its request timeout keeps the trickles open for seconds after the search, however busy the machine.
    const patient = await createGateway({
      upstream: upstream.url,
      passthroughUnknown: true,
      requestTimeoutMs: 5000,
      connections: 2,
      logger: createLogger({ level: "silent" }),
    });
    const listener = patient.app.listen(0, "127.0.0.1");
    await once(listener, "listening");
    const patientPort = (listener.address() as { port: number }).port;
    try {
      let trickles = 4;
      const trickling = Array.from({ length: trickles }, () =>
        trickle(patientPort, "/v1/unknown", 1000, 200).finally(() => trickles--),
      );
      await expect.poll(() => connectionsOf(listener), { timeout: 20_000 }).toBe(4);
      const res = await send(`http://127.0.0.1:${patientPort}`, {
        path: "/v1/resources/search?query=a",
        headers: auth,
      });
      expect(res.status).toBe(200);
      expect(trickles, "trickles still open when the search was answered").toBe(4);
      for (const { text } of await Promise.all(trickling)) expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(upstream.received.map((r) => r.url)).toEqual(["/v1/resources/search?query=a"]);
    } finally {
      listener.closeAllConnections();
      listener.close();
      await patient.close();
    }
  });
});

describe("/metrics in front of a backend answering any status", () => {
  it("labels come from a bounded set: documented statuses by number, others by class or `other`", async () => {
    const anyStatus = await testUpstream();
    anyStatus.answer = (req, res) => {
      res.writeHead(Number(new URL(req.url, "http://x").searchParams.get("query")), {
        "content-type": "application/json",
      });
      res.end("{}");
    };
    const gw = await testGateway({ upstream: anyStatus.url });
    try {
      for (let status = 200; status <= 999; status += 7)
        await send(gw.url, { path: `/v1/resources/search?query=${status}`, headers: auth });
      const metrics = await (await fetch(`${gw.url}/metrics`)).text();
      const labels = new Set([...metrics.matchAll(/status="([^"]+)"/g)].map((m) => m[1]));
      const documented = [
        "200",
        "204",
        "400",
        "405",
        "401",
        "403",
        "404",
        "409",
        "413",
        "415",
        "429",
        "500",
        "502",
        "503",
        "504",
      ];
      expect([...labels].filter((l) => !documented.includes(l ?? "") && !/^[2-5]xx$|^other$/.test(l ?? ""))).toEqual(
        [],
      );
      expect(labels).toContain("other");
      expect(labels).toContain("3xx");
    } finally {
      await gw.close();
      await anyStatus.close();
    }
  });
});
