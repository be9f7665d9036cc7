/**
 * The admin API keeps the stub serving, against the compute-stub command in a process of its own (its event loop
 * apart from the test's): the journal's path filter on a pattern a regular expression backtracks on, and a load of
 * the largest generated data set the API makes, built while /healthz goes on answering.
 */
import { describe, expect, it } from "vitest";
import { maxLoadGenerate } from "../src/admin-state.js";
import { startStubProcess } from "./support/stub-process.js";

describe("the journal's path filter", () => {
  it("matches *a*a*a*b against a 2,000-character path, answering right, and /healthz answers after it", {
    timeout: 120_000,
  }, async () => {
    // Before, the filter was the regular expression ^.*a.*a.*a.*b$, which backtracks: on these 2,000 characters it
    // held the stub's event loop for over an hour (0.5 s at 200 characters, growing with the fourth power), and this
    // test ended at its timeout.
    const stub = await startStubProcess(["--log-level", "silent"]);
    const path = `/${"a".repeat(2000)}`;
    expect((await fetch(`${stub.url}${path}`)).status).toBe(404);
    const matching = async (pattern: string) => {
      const answer = await fetch(`${stub.url}/__stub/requests?path=${encodeURIComponent(pattern)}`);
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { requests: { path: string }[] }).requests.map((entry) => entry.path);
    };
    expect(await matching("*a*a*a*b")).toEqual([]);
    expect(await matching("*a*a*a*")).toEqual([path]);
    expect(await matching("/a*a")).toEqual([path]);
    expect((await fetch(`${stub.url}/healthz`)).status).toBe(200);
  });
});

describe(`a load of the largest generated set (${maxLoadGenerate} resources)`, () => {
  it("is built while the stub serves: /healthz answers again and again before the load does, and the load applies whole", {
    timeout: 300_000,
  }, async () => {
    // Before, the load was built at once: 100,000 resources held the event loop for seconds (2.4 s on an idle
    // machine), and /healthz was answered at most once before the load's answer (before the build began).
    const stub = await startStubProcess(["--log-level", "silent"]);
    let loaded = false;
    const load = fetch(`${stub.url}/__stub/load`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ generate: maxLoadGenerate, seed: 3 }),
    }).finally(() => {
      loaded = true;
    });
    let answeredBefore = 0;
    while (!loaded) {
      expect((await fetch(`${stub.url}/healthz`)).status).toBe(200);
      if (!loaded) answeredBefore++;
    }
    const answer = await load;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { resourceCount: number }).resourceCount).toBe(maxLoadGenerate);
    expect(answeredBefore).toBeGreaterThanOrEqual(5);
    const search = await fetch(`${stub.url}/v1/resources/search?query=type:disk`, {
      headers: { authorization: `Bearer ${stub.key}` },
    });
    expect(((await search.json()) as { results: unknown[] }).results.length).toBeGreaterThan(10);
  });
});
