/** pino lines: one per request, with its request id and operationId, and never a key — the caller's or a created one. */

import { listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

const callerKey = "cak_CALLERSECRET-9f8e7d6c5b4a";
const createdKey = "cak_CREATEDSECRET-1a2b3c4d5e6f";
const headers = { authorization: `Bearer ${callerKey}`, "content-type": "application/json" };

let upstream: TestUpstream;
let gateways: TestGateway[];
let unreachable: TestGateway;

beforeAll(async () => {
  upstream = await testUpstream();
  gateways = [
    await testGateway({ upstream: upstream.url }),
    await testGateway({ upstream: upstream.url, responseValidation: "report" }),
  ];
  const closed = await listenLocal(() => {});
  await closed.close();
  unreachable = await testGateway({ upstream: closed.url });
});
afterAll(async () => {
  for (const gateway of [...gateways, unreachable]) await gateway.close();
  await upstream.close();
});

describe.each([0, 1])("gateway %i", (index) => {
  it("writes one line per request, with the request id, operationId and status", async () => {
    const gateway = gateways[index]!;
    upstream.answer = (_req, res) => json(res, 200, { id: "k", createTime: "2026-11-22T08:00:00Z", key: createdKey });
    const res = await fetch(`${gateway.url}/v1/api-keys`, {
      method: "POST",
      headers: { ...headers, "x-request-id": `log-${index}` },
      body: '{"apikeyId":"abcd"}',
    });
    expect(res.status).toBe(200);
    const lines = gateway.logs.filter((l) => l.reqId === `log-${index}` && l.req);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      operationId: "createApiKey",
      req: { method: "POST", path: "/v1/api-keys" },
      res: { status: 200 },
    });
  });

  it("never logs the caller's key or a created key, whatever happens", async () => {
    const gateway = gateways[index]!;
    // A created key in a response that breaks the contract (502 in enforce, logged violations in report).
    upstream.answer = (_req, res) => json(res, 200, { id: "k", createTime: "not a time", key: createdKey });
    await fetch(`${gateway.url}/v1/api-keys`, { method: "POST", headers, body: '{"apikeyId":"abcd"}' });
    // A malformed Authorization header (401) and an invalid body (400).
    await fetch(`${gateway.url}/v1/api-keys`, {
      method: "POST",
      headers: { ...headers, authorization: `Token ${callerKey}` },
      body: '{"apikeyId":"abcd"}',
    });
    await fetch(`${gateway.url}/v1/api-keys`, { method: "POST", headers, body: `{"apikeyId":"${callerKey}"}` });
    expect(gateway.logs.length).toBeGreaterThan(3);
    expect(gateway.logText()).not.toContain("CALLERSECRET");
    expect(gateway.logText()).not.toContain("CREATEDSECRET");
  });
});

it("never logs the caller's key when the upstream cannot be reached", async () => {
  const res = await fetch(`${unreachable.url}/v1/resources/search?query=a`, { headers });
  expect(res.status).toBe(503);
  expect(unreachable.logs.some((l) => l.level === 50)).toBe(true);
  expect(unreachable.logText()).not.toContain("CALLERSECRET");
});
