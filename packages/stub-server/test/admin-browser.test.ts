/**
 * The admin API against real pages in headless Chromium: a page served from another port of 127.0.0.1 (another
 * origin) sends the stub's reset as a "simple" request (`text/plain`, `no-cors`), as JSON without and with CORS, and
 * tries to read the journal; a page whose name is re-pointed at 127.0.0.1 (DNS rebinding, by Chromium's own
 * resolver rules, so that nothing leaves this machine) is same-origin with the stub and tries the same. The stub's
 * state is unchanged afterwards, its log shows the requests the browser did send refused, and no page reads a byte
 * of the admin API.
 */
import { type Listening, listenLocal } from "@compute-api/test-support";
import { launchChromium, skipWithoutChromium } from "@compute-api/test-support/browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestStub, type TestStub } from "./support/stub.js";

/** The name the browser resolves to 127.0.0.1, as an attacker's DNS would after rebinding. */
const rebound = "rebound.example";

/** What a page's attempt gave it: an answer it may see (opaque: status 0, no body) or the error fetch threw. */
type Attempt = { type: string; status: number; text: string } | { error: string };

/** Runs fetches in the page, each to `stub` + its path, and returns what each gave. */
function attempts(page: Page, stub: string, requests: [string, RequestInit][]): Promise<Attempt[]> {
  return page.evaluate(
    async ({ stub, requests }) =>
      Promise.all(
        requests.map(async ([path, init]) => {
          try {
            const answer = await fetch(stub + path, init);
            return { type: answer.type, status: answer.status, text: await answer.text() };
          } catch (error) {
            return { error: (error as Error).name };
          }
        }),
      ),
    { stub, requests },
  );
}

/** The admin API's request lines in the stub's log, as `METHOD path status`. */
const adminLines = (s: TestStub) =>
  s.logs.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => msg.includes(" /__stub/"));

describe.skipIf(skipWithoutChromium())("the admin API and pages in Chromium", () => {
  let stub: TestStub;
  let browser: Browser;
  let site: Listening;

  beforeAll(async () => {
    [stub, browser, site] = await Promise.all([
      startTestStub(),
      launchChromium([`--host-resolver-rules=MAP ${rebound} 127.0.0.1`]),
      listenLocal((_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html>")),
    ]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await stub?.close();
  });

  /** The state after a PATCH (so that a reset would show), and the journal holding a request. */
  async function changedState(): Promise<string> {
    const patched = await stub.call(
      "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01",
      json("PATCH", { powerState: "OFF", priceHr: { value: "6.5" } }),
    );
    expect(patched.status).toBe(200);
    return (await stub.call("/__stub/snapshot", { as: null })).text();
  }

  it("a page of another 127.0.0.1 origin can neither reset the state nor read the journal", {
    timeout: 120_000,
  }, async () => {
    const before = await changedState();
    stub.logs.length = 0;
    const page = await browser.newPage();
    await page.goto(site.url);
    const [textNoCors, jsonNoCors, jsonCors, loadNoCors, journal, journalNoCors, snapshot] = await attempts(
      page,
      stub.url,
      [
        ["/__stub/reset", { method: "POST", body: "{}", headers: { "Content-Type": "text/plain" }, mode: "no-cors" }],
        // no-cors drops a Content-Type no simple request may have: this one goes out as text/plain too.
        [
          "/__stub/reset",
          { method: "POST", body: "{}", headers: { "Content-Type": "application/json" }, mode: "no-cors" },
        ],
        ["/__stub/reset", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } }],
        ["/__stub/load", { method: "POST", body: '{"builtin":true}', mode: "no-cors" }],
        ["/__stub/requests", {}],
        ["/__stub/requests", { mode: "no-cors" }],
        ["/__stub/snapshot", {}],
      ],
    );
    await page.close();
    // The simple requests were sent and refused; the page sees an opaque answer, with nothing in it.
    for (const attempt of [textNoCors, jsonNoCors, loadNoCors, journalNoCors])
      expect(attempt).toEqual({ type: "opaque", status: 0, text: "" });
    // What needs CORS the browser refused to hand over (or, for the JSON POST, to send after its preflight).
    for (const attempt of [jsonCors, journal, snapshot]) expect(attempt).toEqual({ error: "TypeError" });
    expect(await (await stub.call("/__stub/snapshot", { as: null })).text()).toBe(before);
    const lines = adminLines(stub);
    expect(lines.filter((line) => line === "POST /__stub/reset 415")).toHaveLength(2);
    expect(lines).toContain("POST /__stub/load 415");
    expect(lines).toContain("OPTIONS /__stub/reset 403");
    expect(lines.filter((line) => line.startsWith("POST /__stub/reset 2"))).toEqual([]);
  });

  it("a page whose name was re-pointed at 127.0.0.1 (DNS rebinding) is same-origin with the stub and is refused all the same", {
    timeout: 120_000,
  }, async () => {
    const before = await changedState();
    const port = new URL(stub.url).port;
    const page = await browser.newPage();
    // The stub's own /healthz, under the rebound name: the page's origin is the stub's host and port.
    await page.goto(`http://${rebound}:${port}/healthz`);
    const [reset, snapshot, journal] = await attempts(page, "", [
      ["/__stub/reset", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } }],
      ["/__stub/snapshot", {}],
      ["/__stub/requests", {}],
    ]);
    await page.close();
    for (const attempt of [reset, snapshot, journal]) {
      expect(attempt).toMatchObject({ type: "basic", status: 403 });
      expect((attempt as { text: string }).text).toMatch(/Host not allowed/);
      expect((attempt as { text: string }).text).not.toContain("cm-alpha-01");
    }
    expect(await (await stub.call("/__stub/snapshot", { as: null })).text()).toBe(before);
  });
});
