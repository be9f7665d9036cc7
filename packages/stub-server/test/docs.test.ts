/**
 * The /docs page in a real browser (Chromium through playwright-core): the three operations render, the page asks
 * nothing of any other origin, the server shows as a URL, descriptions render their Markdown, and the search result
 * union shows each of its types with no schema row of type `any`.
 */
import { loadSpec, specOperations } from "@compute-api/contract";
import { launchChromium, skipWithoutChromium } from "@compute-api/test-support/browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStub, type TestStub } from "./support/stub.js";

const spec = loadSpec() as unknown as {
  servers: { description: string; variables: { baseUrl: { default: string } } }[];
  components: { schemas: { SearchResult: { discriminator: { mapping: Record<string, string> } } } };
};
const server = spec.servers[0] ?? { description: "", variables: { baseUrl: { default: "" } } };
/** The URL the reference must show for the service: the server variable's default. */
const defaultUrl = server.variables.baseUrl.default;
/** Each search result's resourceType, which names its one typed field. */
const resourceTypes = Object.keys(spec.components.schemas.SearchResult.discriminator.mapping);

/** Each operation's page in the reference, and its path. */
const operations = [
  ["#/cluster-machines/updateclustermachine", "/v1/projects/{projectId}/cluster-machines/{id}"],
  ["#/api-keys/createapikey", "/v1/api-keys"],
  ["#/search/searchresources", "/v1/resources/search"],
] as const;

/** A page of the reference and what it did that it must not: ask another origin, throw. */
interface DocsPage {
  page: Page;
  elsewhere: string[];
  errors: string[];
}

/** The name and shown type of every schema row on the page (Redoc marks each row's name with `schema-name`). */
function schemaRows(page: Page): Promise<{ name: string; type: string }[]> {
  return page.locator(".schema-name").evaluateAll((names) =>
    names.map((name) => ({
      name: name.textContent ?? "",
      type: name.parentElement?.parentElement?.querySelector(":scope > em")?.textContent ?? "",
    })),
  );
}

/** The text of the page that shows a backtick outside code, as Markdown that was not rendered would. */
function literalBackticks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.textContent?.includes("`") && !node.parentElement?.closest("code, pre, script, style")) {
        found.push(node.textContent);
      }
    }
    return found;
  });
}

describe.skipIf(skipWithoutChromium())("/docs", () => {
  let stub: TestStub;
  let browser: Browser;
  beforeAll(async () => {
    [stub, browser] = await Promise.all([startTestStub(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stub?.close();
  });

  /**
   * Opens the reference at a hash route. Every request is recorded, and only the stub's are let through, so the page
   * must work offline. The viewport is tall because Redoc renders a schema only once it is near the viewport.
   */
  async function openDocs(route = ""): Promise<DocsPage> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 6000 } });
    const docs: DocsPage = { page, elsewhere: [], errors: [] };
    page.on("request", (request) => {
      const url = request.url();
      // Redoc's own blob: URLs are of the page's origin; a data: URL is no request to anywhere.
      const own = url.startsWith(`${stub.url}/`) || url.startsWith(`blob:${stub.url}/`) || url.startsWith("data:");
      if (!own) docs.elsewhere.push(url);
    });
    await page.route("**/*", (route) =>
      route.request().url().startsWith(`${stub.url}/`) ? route.continue() : route.abort(),
    );
    page.on("pageerror", (e) => docs.errors.push(e.message));
    await page.goto(`${stub.url}/docs${route}`);
    return docs;
  }

  /** Waits until the page has asked for nothing for a while (a late image or beacon included), then closes it. */
  async function close({ page, elsewhere, errors }: DocsPage): Promise<{ elsewhere: string[]; errors: string[] }> {
    await page.waitForLoadState("networkidle");
    await page.close();
    return { elsewhere, errors };
  }

  it("renders the three operations, each on its tag's page, and asks nothing of any other origin", async () => {
    const docs = await openDocs();
    const { page } = docs;
    await expect(page.title()).resolves.toBe("Compute service API reference");
    // Every operation of the spec, under its tag (a tag may hold several).
    const tags = specOperations(loadSpec()).map(({ path, operation }) => [
      (operation.tags as string[] | undefined)?.[0],
      String(operation.summary),
      path,
    ]);
    for (const [tag = "", summary = "", path = ""] of tags) {
      await page.getByRole("link", { name: tag, exact: true }).first().click();
      await page.getByRole("heading", { name: summary }).first().waitFor({ state: "visible", timeout: 60_000 });
      expect(await page.getByText(path, { exact: true }).count()).toBeGreaterThan(0);
    }
    await page.waitForLoadState("networkidle");
    expect(docs.elsewhere).toEqual([]);
    // The sidebar's "API docs by Redocly" logo came from Redocly's CDN; it is drawn still, from the page itself.
    const logo = page.getByAltText("redocly logo");
    await expect(logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).resolves.toBe(true);
    expect(await close(docs)).toEqual({ elsewhere: [], errors: [] });
  });

  it("shows the server as its default URL with how to change it, on the overview and on an operation's own page", async () => {
    const overview = await openDocs();
    await overview.page.getByText(server.description, { exact: true }).waitFor({ timeout: 60_000 });
    await expect(overview.page.getByText(defaultUrl, { exact: true }).count()).resolves.toBeGreaterThan(0);
    await expect(overview.page.locator("body").innerText()).resolves.not.toContain("{baseUrl}");
    expect(await close(overview)).toEqual({ elsewhere: [], errors: [] });

    // Opened straight at an operation, the page used to resolve the template against its own URL (/docs/{baseUrl}).
    const [route, path] = operations[2];
    const deepLink = await openDocs(route);
    await deepLink.page.locator("button[aria-haspopup=menu]", { hasText: path }).click();
    await expect(deepLink.page.getByRole("menu").innerText()).resolves.toContain(`${defaultUrl}${path}`);
    await expect(deepLink.page.locator("body").innerText()).resolves.not.toContain("{baseUrl}");
    expect(await close(deepLink)).toEqual({ elsewhere: [], errors: [] });
  });

  it("renders the Markdown of descriptions, leaving no backtick outside code", async () => {
    const overview = await openDocs();
    await overview.page.locator("code", { hasText: "ErrorBody" }).first().waitFor();
    expect(await literalBackticks(overview.page)).toEqual([]);
    expect(await close(overview)).toEqual({ elsewhere: [], errors: [] });
    for (const [route] of operations) {
      const docs = await openDocs(route);
      await docs.page.locator(".schema-name").first().waitFor();
      if (route === "#/search/searchresources") {
        const results = docs.page.locator('[id$="t=response&c=200&path=results"]');
        await expect(results.locator("code", { hasText: /^score$/ }).count()).resolves.toBe(1);
      }
      expect(await literalBackticks(docs.page)).toEqual([]);
      expect(await close(docs)).toEqual({ elsewhere: [], errors: [] });
    }
  });

  it("shows the search result union as one type per resourceType, with only the typed field that type has", async () => {
    const docs = await openDocs("#/search/searchresources");
    const { page } = docs;
    const results = page.locator('[id$="t=response&c=200&path=results"]');
    await expect(results.locator(":scope > div > em").first().innerText()).resolves.toMatch(/^Array of objects\b/);
    const switcher = page.locator('[data-section-id="switcher"]').getByRole("button");
    await switcher.click();
    const listed = (await page.getByRole("menuitem").allInnerTexts()).filter((t) => t !== "");
    expect(listed).toEqual(resourceTypes);
    for (const resourceType of resourceTypes) {
      if ((await switcher.getAttribute("aria-expanded")) !== "true") await switcher.click();
      await page.getByRole("menuitem", { name: resourceType, exact: true }).click();
      await page.locator(".schema-name", { hasText: new RegExp(`^${resourceType}$`) }).waitFor();
      const rows = await schemaRows(page);
      const typed = rows.filter((r) => resourceTypes.includes(r.name));
      expect(typed, resourceType).toEqual([{ name: resourceType, type: "object" }]);
      expect(
        rows.filter((r) => /\bany\b/.test(r.type)),
        resourceType,
      ).toEqual([]);
    }
    expect(await close(docs)).toEqual({ elsewhere: [], errors: [] });
  });

  it("shows no schema row of type any, in any operation's request or responses", { timeout: 270_000 }, async () => {
    for (const [route] of operations) {
      const docs = await openDocs(route);
      const { page } = docs;
      const tabs = page.locator("[data-response-codes-tablist] [role=tab]");
      await tabs.first().waitFor();
      const seen: { name: string; type: string }[] = [];
      for (const code of await tabs.allInnerTexts()) {
        await tabs.filter({ hasText: code }).click();
        await page.locator(`[id*="t=response&c=${code}&path="]`).first().waitFor();
        seen.push(...(await schemaRows(page)));
      }
      expect(seen.length, route).toBeGreaterThan(0);
      expect(
        seen.filter((r) => /\bany\b/.test(r.type)),
        route,
      ).toEqual([]);
      expect(await close(docs)).toEqual({ elsewhere: [], errors: [] });
    }
  });
});
