/** Faults that need more than a misbehaving answer: an upstream that is not there, and a caller that leaves. */
import { createServer, request } from "node:http";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

describe("an upstream that cannot be reached", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // A port that was just free: nothing listens there.
    const closed = await listenLocal(() => {});
    await closed.close();
    gateway = await testGateway({ upstream: closed.url });
  });
  afterAll(() => gateway.close());

  it("is answered 503 with Retry-After and the error body", async () => {
    const res = await fetch(`${gateway.url}/v1/resources/search?query=a`, { headers: auth });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toMatchObject({
      code: 503,
      details: expect.arrayContaining([
        expect.objectContaining({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }),
      ]),
    });
  });

  it("makes /readyz answer 503 while /healthz stays 200", async () => {
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });
});

describe("a caller that disconnects", () => {
  let upstream: TestUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await testUpstream();
    upstream.answer = () => {}; // never answers
    gateway = await testGateway({ upstream: upstream.url });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  it("aborts its upstream request", async () => {
    const caller = request(`${gateway.url}/v1/resources/search?query=a`, { headers: auth, agent: false });
    caller.on("error", () => {});
    caller.end();
    await expect.poll(() => upstream.received.length).toBe(1);
    caller.destroy();
    await expect.poll(() => upstream.aborted.length).toBe(1);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain('gateway_requests_total{operation_id="searchResources",status="aborted"} 1');
  });
});

describe("an https:// upstream that does not speak TLS", () => {
  /** A server that closes every connection as soon as it is made, before a byte is read. */
  const hangingUp = () => createServer().on("connection", (socket) => socket.destroy());

  it.each<[string, () => Promise<Listening>, string]>([
    [
      "plain HTTP on the port",
      () => listenLocal((_req, res) => res.end("plain")),
      "does not speak TLS: is it plain HTTP behind an https:// URL\\? \\(ERR_SSL_WRONG_VERSION_NUMBER\\)",
    ],
    [
      "a server that hangs up during the handshake",
      () => listenLocal(hangingUp()),
      "TLS error with the upstream: it closed the connection during the TLS handshake",
    ],
  ])("%s: 502 UPSTREAM_TLS_FAILED, and the log line names the TLS problem", async (_name, start, logged) => {
    const plain = await start();
    const gateway = await testGateway({ upstream: plain.url.replace("http://", "https://") });
    try {
      const res = await fetch(`${gateway.url}/v1/resources/search?query=a`, { headers: auth });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: 502, details: [{ reason: "UPSTREAM_TLS_FAILED" }] });
      const line = gateway.logs.find((l) => String(l.msg).startsWith("upstream request failed"));
      expect(String(line?.msg)).toMatch(new RegExp(logged));
    } finally {
      await gateway.close();
      await plain.close();
    }
  });
});
