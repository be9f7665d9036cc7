/**
 * Browsers through the gateway. A web front end on another origin sends a CORS preflight before a PATCH with a
 * bearer key; without `--cors-origins` the gateway forwards preflights to the backend unvalidated (the backend
 * owns its CORS policy), with it the gateway answers them and sets the CORS headers itself. Checked with a
 * backend that does CORS as production ones do, and end to end in a real Chromium against the stub.
 */
import { createApp } from "@compute-api/stub-server";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { launchChromium, skipWithoutChromium } from "@compute-api/test-support/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayOptions } from "../src/index.js";
import { send } from "./support/client.js";
import { auth, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

const app = "http://app.example";
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
const preflight = {
  origin: app,
  "access-control-request-method": "PATCH",
  "access-control-request-headers": "authorization,content-type",
};

/** A backend with its own CORS policy, as an nginx or framework config has it: preflights for `app` only. */
function corsBackend(upstream: TestUpstream): void {
  upstream.answer = (req, res) => {
    const allowed = req.headers.origin === app;
    if (req.method === "OPTIONS") {
      res.writeHead(
        204,
        allowed
          ? {
              "access-control-allow-origin": app,
              "access-control-allow-methods": "PATCH, GET",
              "access-control-allow-headers": "authorization, content-type",
              "access-control-max-age": "60",
              vary: "Origin",
            }
          : { vary: "Origin" },
      );
      res.end();
      return;
    }
    const body = '{"results":[]}';
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": body.length,
      vary: "Origin",
      ...(allowed ? { "access-control-allow-origin": app } : {}),
    });
    res.end(body);
  };
}

/**
 * Registers hooks that start a corsBackend upstream and a gateway in front of it with the options before the tests of
 * the block it is called in, and stop both after them. The fields are set once the hooks ran.
 */
function withGateway(options: Omit<GatewayOptions, "upstream"> = {}): { upstream: TestUpstream; gateway: TestGateway } {
  const servers = {} as { upstream: TestUpstream; gateway: TestGateway };
  beforeAll(async () => {
    servers.upstream = await testUpstream();
    corsBackend(servers.upstream);
    servers.gateway = await testGateway({ upstream: servers.upstream.url, ...options });
  });
  afterAll(async () => {
    await servers.gateway.close();
    await servers.upstream.close();
  });
  return servers;
}

describe("without --cors-origins", () => {
  const servers = withGateway();

  it("forwards a preflight to the backend unvalidated and sends back its answer", async () => {
    const res = await send(servers.gateway.url, { method: "OPTIONS", path: machine, headers: preflight });
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(app);
    expect(res.headers["access-control-allow-methods"]).toBe("PATCH, GET");
    const [got] = servers.upstream.received;
    expect(got).toMatchObject({ method: "OPTIONS", url: machine });
    expect(got?.headers).toMatchObject(preflight);
    const metrics = await (await fetch(`${servers.gateway.url}/metrics`)).text();
    expect(metrics).toContain('gateway_requests_total{operation_id="preflight",status="204"} 1');
  });

  it("passes the backend's CORS headers on the answer itself", async () => {
    const res = await send(servers.gateway.url, {
      path: "/v1/resources/search?query=a",
      headers: { ...auth, origin: app },
    });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(app);
  });

  it("still validates an OPTIONS that is not a preflight", async () => {
    const before = servers.upstream.received.length;
    const res = await send(servers.gateway.url, { method: "OPTIONS", path: machine, headers: { origin: app } });
    expect(res.status).toBe(405);
    expect(servers.upstream.received).toHaveLength(before);
  });
});

describe("with --cors-origins", () => {
  const servers = withGateway({ corsOrigins: ["http://other.example", app] });

  it("answers a preflight itself, with the spec's methods, and the backend never sees it", async () => {
    const before = servers.upstream.received.length;
    const res = await send(servers.gateway.url, { method: "OPTIONS", path: machine, headers: preflight });
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(app);
    expect(String(res.headers["access-control-allow-methods"]).split(",").sort()).toEqual(["GET", "PATCH", "POST"]);
    expect(res.headers["access-control-allow-headers"]).toBe("authorization,content-type");
    expect(res.headers["access-control-max-age"]).toBe("600");
    expect(servers.upstream.received).toHaveLength(before);
  });

  it("sets its own CORS headers on answers, in place of the backend's, and keeps the backend's Vary", async () => {
    const res = await send(servers.gateway.url, {
      path: "/v1/resources/search?query=a",
      headers: { ...auth, origin: app },
    });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(app);
    expect(res.headers["access-control-expose-headers"]).toContain("x-request-id");
    expect(String(res.headers.vary).split(/,\s*/)).toContain("Origin");
  });

  it("gives an origin it does not allow no CORS headers, even where the backend would", async () => {
    const res = await send(servers.gateway.url, {
      path: "/v1/resources/search?query=a",
      headers: { ...auth, origin: "http://evil.example" },
    });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("sets the CORS headers on its own refusals too, so a front end can read them", async () => {
    const res = await send(servers.gateway.url, { path: "/v1/resources/search?query=a", headers: { origin: app } });
    expect(res.status).toBe(401);
    expect(res.headers["access-control-allow-origin"]).toBe(app);
  });
});

describe.skipIf(skipWithoutChromium())("a web front end in Chromium", () => {
  let browser: Browser;
  let page: Listening;
  let otherPage: Listening;
  const keys = { alice: "cak_cors-alice-0001" };
  const html = (res: import("node:http").ServerResponse) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>app</title>");

  beforeAll(async () => {
    [browser, page, otherPage] = await Promise.all([
      launchChromium(),
      listenLocal((_req, res) => html(res)),
      listenLocal((_req, res) => html(res)),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await page?.close();
    await otherPage?.close();
  });

  /** Loads the front end from `from` and PATCHes a machine through the gateway with a bearer key, as a browser app does. */
  async function patchFrom(
    from: string,
    gatewayUrl: string,
  ): Promise<{ status?: number; body?: unknown; error?: string }> {
    const tab = await browser.newPage();
    try {
      await tab.goto(from);
      return await tab.evaluate(
        async ({ url, key }) => {
          try {
            const res = await fetch(url, {
              method: "PATCH",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: '{"powerState":"POWERING_ON"}',
            });
            return { status: res.status, body: (await res.json()) as unknown };
          } catch (error) {
            return { error: String(error) };
          }
        },
        { url: `${gatewayUrl}${machine}`, key: keys.alice },
      );
    } finally {
      await tab.close();
    }
  }

  it("reaches the stub through the gateway when the backend owns CORS (the preflight is forwarded)", async () => {
    const stub = await listenLocal((await createApp({ apiKeys: keys, corsOrigins: [page.url] })).app);
    const gateway = await testGateway({ upstream: stub.url });
    try {
      expect(await patchFrom(page.url, gateway.url)).toMatchObject({
        status: 200,
        body: { id: "cm-alpha-01", powerState: "POWERING_ON" },
      });
      expect(await patchFrom(otherPage.url, gateway.url)).toMatchObject({
        error: expect.stringMatching(/Failed to fetch/),
      });
    } finally {
      await gateway.close();
      await stub.close();
    }
  });

  it("reaches the stub when the gateway owns CORS, whatever the backend allows", async () => {
    const stub = await listenLocal(
      (await createApp({ apiKeys: keys, corsOrigins: ["http://not-the-app.example"] })).app,
    );
    const gateway = await testGateway({ upstream: stub.url, corsOrigins: [page.url] });
    try {
      expect(await patchFrom(page.url, gateway.url)).toMatchObject({
        status: 200,
        body: { id: "cm-alpha-01", powerState: "POWERING_ON" },
      });
      expect(await patchFrom(otherPage.url, gateway.url)).toMatchObject({
        error: expect.stringMatching(/Failed to fetch/),
      });
    } finally {
      await gateway.close();
      await stub.close();
    }
  });
});
