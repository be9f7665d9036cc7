/**
 * compute-mcp's Streamable HTTP from a web page in headless Chromium: the SDK's own client, bundled for the browser
 * (test/browser-client.ts), on a page of another origin than compute-mcp's, served from 127.0.0.1 (the
 * browser resolves `*.example` there). The browser sends its own preflights and CORS requests: from an origin of
 * `--cors-origins`, or a loopback one, the page connects, lists the tools and calls one; from any other the
 * browser refuses, and nothing reaches the service.
 */
import { fileURLToPath } from "node:url";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { launchChromium, skipWithoutChromium } from "@compute-api/test-support/browser";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedTools } from "../src/tools.js";
import type { BrowserResult } from "./browser-client.js";
import { type HttpMcp, keys, killStarted, startHttp, startStub, type TestStub } from "./support.js";

const token = "mcp-browser-client-token-0123456789";

describe.skipIf(skipWithoutChromium())("an MCP client in a browser page", { timeout: 180_000 }, () => {
  let stub: TestStub;
  let server: HttpMcp;
  let browser: Browser;
  let site: Listening;
  /** The site's origins: as the browser names them, all served by `site`. */
  let allowed: string;
  let other: string;

  beforeAll(async () => {
    const bundled = await build({
      entryPoints: [fileURLToPath(new URL("./browser-client.ts", import.meta.url))],
      bundle: true,
      platform: "browser",
      format: "esm",
      conditions: ["@compute-api/source"],
      write: false,
      logLevel: "silent",
    });
    const script = bundled.outputFiles[0]?.text ?? "";
    site = await listenLocal((req, res) => {
      if (req.url === "/client.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(script);
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><meta charset="utf-8"><script type="module" src="/client.js"></script>');
    });
    allowed = `http://app.example:${site.port}`;
    other = `http://other.example:${site.port}`;
    stub = await startStub();
    server = await startHttp(stub.url, keys.alice, { COMPUTE_MCP_AUTH_TOKEN: token }, ["--cors-origins", allowed]);
    browser = await launchChromium(["--host-resolver-rules=MAP *.example 127.0.0.1"]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await stub?.close();
    killStarted();
  });

  /** Opens the page at `origin` and waits for what its client found, and what the browser's console said. */
  async function clientAt(origin: string): Promise<BrowserResult & { console: string[] }> {
    const tab = await browser.newPage();
    const lines: string[] = [];
    tab.on("console", (message) => lines.push(message.text()));
    try {
      await tab.goto(`${origin}/#${encodeURIComponent(`${server.url} ${token}`)}`);
      await tab.waitForFunction(() => "mcpResult" in window);
      const result = await tab.evaluate(() => (window as unknown as { mcpResult: Promise<BrowserResult> }).mcpResult);
      return { ...result, console: lines };
    } finally {
      await tab.close();
    }
  }

  const preflights = () => server.stderr().match(/"msg":"OPTIONS \/mcp 204"/g)?.length ?? 0;

  it.each([
    ["an origin of --cors-origins", () => allowed],
    ["a loopback origin", () => site.url],
  ])("from %s: connects, lists the tools and calls one, after the browser's preflights", async (_name, origin) => {
    const before = preflights();
    const result = await clientAt(origin());
    expect(result.error, result.console.join("\n")).toBeUndefined();
    expect(result.tools).toEqual(generatedTools().tools.map((t) => t.tool.name));
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.searchText).toMatch(
      /^searchResources: 1 result, best first: projects\/proj-alpha\/clusters\/cl-train-01/,
    );
    expect(preflights()).toBeGreaterThan(before);
  });

  it("from another origin: the browser refuses, and nothing reaches the service", async () => {
    await stub.clearRequests();
    const result = await clientAt(other);
    expect(result.error).toMatch(/Failed to fetch/);
    expect(result.console.join("\n")).toMatch(/blocked by CORS policy/);
    expect(await stub.requests()).toEqual([]);
  });
});
