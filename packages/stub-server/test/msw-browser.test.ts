/**
 * The MSW handlers in a browser. The page (test/support/msw-page.ts: the handlers, msw/browser and the typed client)
 * bundles with no Node built-in — esbuild for the browser platform resolves none — and, bundled by Vite and served
 * from 127.0.0.1 with msw's own mockServiceWorker.js, it registers a real service worker in headless Chromium whose
 * answers to the held requests are the real stub's over HTTP.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { listenLocal } from "@compute-api/test-support";
import { launchChromium, skipWithoutChromium } from "@compute-api/test-support/browser";
import { build as esbuild } from "esbuild";
import type { Browser } from "playwright-core";
import { build as viteBuild } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningStub, startServer } from "../src/index.js";
import { heldKeys, sendHeldRequests } from "./support/held-requests.js";
import type { PageResult } from "./support/msw-page.js";

const require = createRequire(import.meta.url);
const page = fileURLToPath(new URL("support/msw-page.ts", import.meta.url));
/** The browser example of docs/stub-server.md (examples/msw/browser.ts) with an app's search after it. */
const examplePage = fileURLToPath(new URL("support/msw-example-page.ts", import.meta.url));
/** This repository's packages from their TypeScript sources, as every test here runs them. */
const conditions = ["@compute-api/source"];

describe("the browser bundle", () => {
  it("has no Node built-in: esbuild bundles the page for the browser platform, resolving none and leaving none to load", async () => {
    const result = await esbuild({
      entryPoints: [page],
      bundle: true,
      platform: "browser",
      format: "esm",
      minify: true,
      conditions,
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(
      imports.filter((path) => /^node:|^(fs|path|crypto|http|https|net|stream|zlib|util|querystring)$/.test(path)),
    ).toEqual([]);
    const text = result.outputFiles[0]?.text ?? "";
    expect(text).not.toMatch(/\bfrom\s*["']node:|\brequire\(\s*["']node:|\bimport\(\s*["']node:/);
    // The handlers' own modules are in it, and neither Express nor express-openapi-validator.
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((file) => file.endsWith("src/msw/create-stub-handlers.ts"))).toBe(true);
    expect(
      inputs.filter((file) => /node_modules\/(express|express-openapi-validator|body-parser)\//.test(file)),
    ).toEqual([]);
  });
});

describe.skipIf(skipWithoutChromium())("setupWorker in Chromium", () => {
  let stub: RunningStub;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof listenLocal>>;
  let bundle = "";

  /** Bundles an entry for the browser with Vite 8, as an app's build would. */
  async function bundleWithVite(entry: string): Promise<string> {
    const built = await viteBuild({
      configFile: false,
      logLevel: "silent",
      resolve: { conditions: [...conditions, "browser", "module", "import", "default"] },
      build: {
        write: false,
        minify: true,
        target: "es2022",
        rollupOptions: { input: entry, output: { format: "es", codeSplitting: false } },
      },
    });
    const outputs = (Array.isArray(built) ? built : [built]) as { output: { type: string; code?: string }[] }[];
    return outputs.flatMap((b) => b.output).find((chunk) => chunk.type === "chunk")?.code ?? "";
  }

  beforeAll(async () => {
    bundle = await bundleWithVite(page);
    const worker = readFileSync(require.resolve("msw/mockServiceWorker.js"), "utf8");
    const html = (script: string) =>
      `<!doctype html><meta charset="utf-8"><script type="module" src="${script}"></script>`;
    const files: Record<string, [string, string]> = {
      "/": ["text/html", html("/page.js")],
      "/page.js": ["text/javascript", bundle],
      "/example/": ["text/html", html("/example/page.js")],
      "/example/page.js": ["text/javascript", await bundleWithVite(examplePage)],
      "/mockServiceWorker.js": ["text/javascript", worker],
    };
    [stub, browser, site] = await Promise.all([
      startServer({ port: 0, host: "127.0.0.1", apiKeys: heldKeys }),
      launchChromium(),
      listenLocal((req, res) => {
        const file = files[req.url ?? ""];
        if (!file) return void res.writeHead(404).end();
        res.writeHead(200, { "content-type": file[0], "cache-control": "no-store" }).end(file[1]);
      }),
    ]);
  }, 360_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await stub?.close();
  });

  it("a real service worker answers the held requests as the stub over HTTP does, and reset() starts over", {
    timeout: 360_000,
  }, async () => {
    const overHttp = await sendHeldRequests(stub.url);
    const tab = await browser.newPage();
    const offsite: string[] = [];
    // Nothing may reach the network for the mocked origin: every request to it must be the worker's.
    tab.on("requestfinished", (request) => {
      if (request.url().startsWith("https://compute.example") && !request.serviceWorker() && request.frame())
        offsite.push(request.url());
    });
    await tab.goto(site.url);
    const result = (await tab.evaluate(
      () => (window as unknown as { mswResult: Promise<PageResult> }).mswResult,
    )) as PageResult;
    expect(result.error).toBeUndefined();
    expect(result.controlled).toBe(true);
    expect(result.answers).toEqual(overHttp);
    expect(result.resetAlike).toBe(true);
    await tab.close();
    const bytes = Buffer.byteLength(bundle);
    console.log(
      `msw page bundle (vite, minified): ${(bytes / 1024).toFixed(0)} KiB, ${(gzipSync(bundle).length / 1024).toFixed(0)} KiB gzipped`,
    );
  });

  it("the browser example of docs/stub-server.md starts a worker that answers the app's client", {
    timeout: 180_000,
  }, async () => {
    const tab = await browser.newPage();
    await tab.goto(`${site.url}/example/`);
    // The example awaits the worker's start at its top level: the page's search is set once it has.
    await tab.waitForFunction(() => "exampleResult" in window, undefined, { timeout: 90_000 });
    const result = await tab.evaluate(() => (window as unknown as { exampleResult: Promise<unknown> }).exampleResult);
    expect(result).toEqual({ status: 200, names: ["projects/proj-alpha", "projects/proj-beta"] });
    await tab.close();
  });
});
