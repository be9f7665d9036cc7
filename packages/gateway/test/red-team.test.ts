/**
 * What a red-team pass found the gateway forwarding or failing on: query parameters hidden past node:querystring's
 * default of 1,000 pairs, a large invalid array that answered 500 and held the event loop, and a body sent to an
 * operation that takes none. Each is answered 400 by the gateway, and the backend receives nothing.
 */
import { maxFieldViolations, type FieldViolation } from "@compute-api/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { send, type RawResponse } from "./support/client.js";
import { auth, testGateway, testUpstream, type TestGateway, type TestUpstream } from "./support/servers.js";

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
  ((JSON.parse(res.body.toString()) as { details?: { fieldViolations?: FieldViolation[] }[] }).details ?? []).flatMap((d) => d.fieldViolations ?? []);

describe("a query past 1,000 pairs (empty ones count for node:querystring) is checked whole", () => {
  it.each([
    ["a bad query and an undeclared parameter after 1,000 `&`", `query=ok${"&".repeat(1000)}&query=%01%02&evil=1`, "query"],
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

  it("leaves the event loop free: /healthz answers within a second, again and again, while ten are in flight (it took seconds)", async () => {
    let done = false;
    const answers = Promise.all(Array.from({ length: 10 }, () => send(gateway.url, { method: "PATCH", path: machine, headers: json, body }))).finally(() => (done = true));
    const waits: number[] = [];
    do {
      const started = performance.now();
      expect((await send(gateway.url, { path: "/healthz" })).status).toBe(200);
      waits.push(performance.now() - started);
    } while (!done);
    expect((await answers).map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 400));
    expect(Math.max(...waits)).toBeLessThan(1000);
  });
});

describe("a body on an operation that takes none", () => {
  const smuggled = "GET /v1/resources/search?query=smuggled HTTP/1.1\r\nHost: upstream\r\nAuthorization: Bearer test-key_123\r\n\r\n";
  it.each([
    ["a second request as the body, framed by Content-Length", { ...auth, "content-length": String(smuggled.length) }, smuggled],
    ["a chunked body", { ...auth, "transfer-encoding": "chunked" }, smuggled],
    ["a JSON body", json, '{"query":"a"}'],
  ])("%s: 400, and the backend receives nothing", async (_name, headers: Record<string, string>, body) => {
    const res = await send(gateway.url, { path: "/v1/resources/search?query=a", headers, body });
    expect(res.status).toBe(400);
    expect(violations(res)).toEqual([{ field: "", description: "this operation takes no request body", reason: "body" }]);
    expect(upstream.received).toHaveLength(0);
  });
});
