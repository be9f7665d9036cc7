/** /healthz, /readyz and /metrics: liveness, readiness, and the counters of traffic and violations. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { example } from "./support/fixtures.js";
import { auth, json, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

let upstream: TestUpstream;
let gateway: TestGateway;
beforeAll(async () => {
  upstream = await testUpstream();
  gateway = await testGateway({ upstream: upstream.url, responseValidation: "report" });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe("/healthz and /readyz", () => {
  it("answer 200 while the upstream answers, and are never forwarded", async () => {
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toEqual({ status: "ok" });
    const before = upstream.received.length;
    expect(await (await fetch(`${gateway.url}/readyz`)).json()).toEqual({ status: "ready" });
    // The readiness probe itself is one request to the upstream's base path.
    expect(upstream.received.slice(before).map((r) => r.url)).toEqual(["/"]);
  });
});

describe("/metrics", () => {
  it("counts requests by operationId and status, violations by direction, and upstream latency", async () => {
    upstream.answer = (_req, res) => json(res, 200, example("SearchResourcesResponse"));
    await fetch(`${gateway.url}/v1/resources/search?query=a`, { headers: auth });
    await fetch(`${gateway.url}/v1/resources/search?query=a`, { headers: auth });
    await fetch(`${gateway.url}/v1/resources/search?query=a`); // 401: a request violation
    await fetch(`${gateway.url}/v1/nowhere`, { headers: auth }); // 404
    upstream.answer = (_req, res) => json(res, 200, { id: 1 });
    await fetch(`${gateway.url}/v1/api-keys`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"apikeyId":"abcd"}',
    });

    const res = await fetch(`${gateway.url}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const line of [
      'gateway_requests_total{operation_id="searchResources",status="200"} 2',
      'gateway_requests_total{operation_id="searchResources",status="401"} 1',
      'gateway_requests_total{operation_id="none",status="404"} 1',
      'gateway_requests_total{operation_id="createApiKey",status="200"} 1',
      'gateway_contract_violations_total{direction="request",operation_id="searchResources"} 1',
      'gateway_contract_violations_total{direction="request",operation_id="none"} 1',
      'gateway_contract_violations_total{direction="response",operation_id="createApiKey"} 1',
      'gateway_upstream_duration_seconds_count{operation_id="searchResources",status="200"} 2',
      'gateway_upstream_duration_seconds_count{operation_id="createApiKey",status="200"} 1',
    ]) {
      expect(text).toContain(line);
    }
  });
});
