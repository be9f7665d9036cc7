/**
 * The admin API against what a web page the developer opens can send it: each request here carries the headers
 * Chromium sends for that request (Origin, Sec-Fetch-*, the Content-Type a "simple" request may have), or the Host
 * of a page whose name was re-pointed at 127.0.0.1 (DNS rebinding). None of them changes the stub's state or reads
 * its journal, and the admin API sends no CORS header; the interface's own routes keep theirs.
 * (admin-browser.test.ts makes the same attempts from a real page in headless Chromium.)
 */
import { request } from "node:http";
import { errorBodyProblems } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import { json, reasons, stubPerTest, type TestStub } from "./support/stub.js";

const stub = stubPerTest();

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** One request with exactly these headers, Host included (fetch sets its own Host). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      { host: target.hostname, port: target.port, method, path, headers, agent: false, setHost: !("host" in headers) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** What Chromium sends with a page's `fetch(…, { method, body: "{}", mode: "no-cors" })` to another port of 127.0.0.1. */
const pageOf = (site: string) => ({
  origin: site,
  referer: `${site}/`,
  accept: "*/*",
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140 Safari/537.36",
  "sec-fetch-site": "same-site",
  "sec-fetch-mode": "no-cors",
  "sec-fetch-dest": "empty",
});
const otherSite = "https://attacker.example";
const localPage = "http://127.0.0.1:5173";

/** The response headers of CORS. */
const corsHeaders = (answer: Answer) =>
  Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"));

/** The state as a snapshot, changed first by a PATCH so that a reset would show. */
async function changedState(s: TestStub): Promise<string> {
  const patched = await s.call(
    "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01",
    json("PATCH", { powerState: "OFF", priceHr: { value: "7.25" } }),
  );
  expect(patched.status).toBe(200);
  return (await s.call("/__stub/snapshot", { as: null })).text();
}

describe("a page's simple request (text/plain, no preflight)", () => {
  it.each([
    ["with the default --cors-origins *", {}],
    ["with --cors-origins restricted to the page's own origin", { corsOrigins: [localPage] }],
    ["with --cors-origins restricted to another origin", { corsOrigins: ["http://localhost:3000"] }],
  ])("%s: POST /__stub/reset, /load and /restore are 415 and change nothing", async (_name, options) => {
    const s = await stub(options);
    const before = await changedState(s);
    const simple = { ...pageOf(localPage), "content-type": "text/plain;charset=UTF-8" };
    for (const [path, body] of [
      ["/__stub/reset", "{}"],
      ["/__stub/load", '{"builtin":true}'],
      ["/__stub/restore", before],
    ] as const) {
      const answer = await send(
        s.url,
        "POST",
        path,
        { ...simple, "content-length": String(Buffer.byteLength(body)) },
        body,
      );
      expect(errorBodyProblems(answer, [415]), path).toEqual([]);
      expect(corsHeaders(answer), path).toEqual([]);
    }
    // A form's types are no JSON either.
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const answer = await send(s.url, "POST", "/__stub/reset", { ...pageOf(localPage), "content-type": type }, "a=b");
      expect(answer.status, type).toBe(415);
    }
    expect(await (await s.call("/__stub/snapshot", { as: null })).text()).toBe(before);
  });

  it("every write needs Content-Type: application/json, with or without a body: DELETE and PATCH too", async () => {
    const s = await stub({ faults: { latencyMs: { min: 0, max: 1 } } });
    await s.call("/v1/resources/search?query=train");
    const writes = [
      ["POST", "/__stub/reset"],
      ["DELETE", "/__stub/requests"],
      ["DELETE", "/__stub/faults"],
    ] as const;
    for (const [method, path] of writes) {
      const refused = await send(s.url, method, path, pageOf(localPage));
      expect(errorBodyProblems(refused, [415]), `${method} ${path}`).toEqual([]);
      expect((refused.json as { message: string }).message).toMatch(/Content-Type: application\/json/);
    }
    const patch = await send(s.url, "PATCH", "/__stub/faults", { "content-type": "text/plain" }, '{"latency":null}');
    expect(patch.status).toBe(415);
    expect((await (await s.call("/__stub/faults", { as: null })).json()).latency).toBe("0-1");
    expect((await (await s.call("/__stub/requests", { as: null })).json()).requests).toHaveLength(1);
    // The same writes with the header are served.
    for (const [method, path] of writes)
      expect((await send(s.url, method, path, { "content-type": "application/json" })).status).toBe(200);
  });
});

describe("a preflight of the admin API", () => {
  it.each([
    ["another site", otherSite],
    ["a page of this machine", localPage],
  ])(
    "from %s allows nothing: no Access-Control-Allow-* header, and the POST it asks for is never made",
    async (_n, origin) => {
      const s = await stub();
      const answer = await send(s.url, "OPTIONS", "/__stub/load", {
        ...pageOf(origin),
        "sec-fetch-mode": "cors",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      });
      expect(errorBodyProblems(answer, [403])).toEqual([]);
      expect(corsHeaders(answer)).toEqual([]);
    },
  );

  it("of the interface's own routes is still answered as --cors-origins says", async () => {
    const s = await stub();
    const answer = await send(s.url, "OPTIONS", "/v1/resources/search?query=a", {
      ...pageOf(otherSite),
      "sec-fetch-mode": "cors",
      "access-control-request-method": "GET",
      "access-control-request-headers": "authorization",
    });
    expect(answer.status).toBe(204);
    expect(answer.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("reading the admin API from a page", () => {
  it("the snapshot, the journal and the list get no Access-Control-Allow-Origin, so no page of another origin reads them", async () => {
    const s = await stub();
    await s.call("/v1/resources/search?query=train");
    for (const path of ["/__stub/snapshot", "/__stub/requests", "/__stub/", "/__stub/faults"]) {
      const answer = await send(s.url, "GET", path, { ...pageOf(localPage), "sec-fetch-mode": "cors" });
      expect(answer.status, path).toBe(200);
      expect(corsHeaders(answer), path).toEqual([]);
    }
    const api = await send(s.url, "GET", "/v1/resources/search?query=a", {
      ...pageOf(otherSite),
      "sec-fetch-mode": "cors",
      authorization: `Bearer ${s.keys.alice}`,
    });
    expect(api.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("Host and Origin on loopback, as compute-mcp checks them", () => {
  it("a Host that is not a loopback name (DNS rebinding) is 403 and changes nothing", async () => {
    const s = await stub();
    const before = await changedState(s);
    const port = new URL(s.url).port;
    for (const [method, path] of [
      ["POST", "/__stub/reset"],
      ["GET", "/__stub/snapshot"],
      ["GET", "/__stub/requests"],
    ] as const) {
      const answer = await send(s.url, method, path, {
        host: `attacker.example:${port}`,
        "content-type": "application/json",
        "sec-fetch-site": "same-origin",
      });
      expect(errorBodyProblems(answer, [403]), `${method} ${path}`).toEqual([]);
      expect(reasons(answer.json as never)).toEqual(["PERMISSION_DENIED"]);
      expect(answer.text).not.toContain("cm-alpha-01");
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`])
      expect((await send(s.url, "GET", "/__stub/", { host })).status, host).toBe(200);
    expect(await (await s.call("/__stub/snapshot", { as: null })).text()).toBe(before);
  });

  it("an Origin of another site is 403, even with --cors-origins * and a JSON body; a loopback one or one of --cors-origins passes", async () => {
    const s = await stub({ corsOrigins: ["*"] });
    const before = await changedState(s);
    const evil = await send(
      s.url,
      "POST",
      "/__stub/reset",
      { ...pageOf(otherSite), "sec-fetch-site": "cross-site", "content-type": "application/json" },
      "{}",
    );
    expect(errorBodyProblems(evil, [403])).toEqual([]);
    expect(await (await s.call("/__stub/snapshot", { as: null })).text()).toBe(before);
    const listed = await stub({ corsOrigins: ["https://app.example"] });
    for (const [target, origin] of [
      [s, localPage],
      [s, "http://localhost:3000"],
      [listed, "https://app.example"],
    ] as const) {
      const answer = await send(target.url, "GET", "/__stub/faults", { origin });
      expect(answer.status, origin).toBe(200);
    }
    expect((await send(listed.url, "GET", "/__stub/faults", { origin: "https://other.example" })).status).toBe(403);
  });

  it("beyond loopback (with its token) any Host is served, and an Origin must be one of --cors-origins", async () => {
    // As the command sets it up for --host 0.0.0.0, here on 127.0.0.1: the tests send nothing beyond this machine.
    const s = await stub({
      admin: { token: "admin-token-beyond", loopback: false },
      corsOrigins: ["https://app.example"],
    });
    const url = s.url;
    const auth = { authorization: "Bearer admin-token-beyond" };
    expect((await send(url, "GET", "/__stub/faults", { ...auth, host: "stub.internal" })).status).toBe(200);
    expect((await send(url, "GET", "/__stub/faults", { ...auth, origin: "https://app.example" })).status).toBe(200);
    expect((await send(url, "GET", "/__stub/faults", { ...auth, origin: localPage })).status).toBe(403);
  });
});
