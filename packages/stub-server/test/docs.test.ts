/** The /docs page in a real browser (Chromium through playwright-core): the three operations render. */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../../../test/support/browser.js";
import { startTestStub, type TestStub } from "./support/stub.js";

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

  it("renders the three operations, each on its tag's page, with nothing but images from elsewhere", async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    // Only the stub serves the page; anything else is refused, so the page must work without it.
    await page.route("**/*", (route) => {
      const request = route.request();
      if (request.url().startsWith(stub.url)) return route.continue();
      if (request.resourceType() !== "image") elsewhere.push(request.url());
      return route.abort();
    });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${stub.url}/docs`);
    await expect(page.title()).resolves.toBe("Compute service API reference");
    const operations = [
      ["Cluster machines", "Update a cluster machine", "/v1/projects/{projectId}/cluster-machines/{id}"],
      ["API keys", "Create an API key", "/v1/api-keys"],
      ["Search", "Search accessible resources", "/v1/resources/search"],
    ];
    for (const [tag = "", summary = "", path = ""] of operations) {
      await page.getByRole("link", { name: tag, exact: true }).first().click();
      await page.getByRole("heading", { name: summary }).first().waitFor({ state: "visible", timeout: 15_000 });
      expect(await page.getByText(path, { exact: true }).count()).toBeGreaterThan(0);
    }
    expect({ elsewhere, errors }).toEqual({ elsewhere: [], errors: [] });
    await page.close();
  });
});
