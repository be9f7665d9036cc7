/**
 * The MSW handlers in Node: the real client, intercepted by MSW's `setupServer`, gets the same answers from the
 * handlers as from the real stub over HTTP for the held requests, and the handlers' state control works as the
 * stub's (reset, snapshot, restore, load).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createComputeClient, unwrap } from "@compute-api/client";
import { builtinFixtures, generateFixtures } from "@compute-api/fixtures";
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultOptions, type RunningStub, startServer } from "../src/index.js";
import { type HeldAnswer, heldKeys, heldRequests, sendHeldRequests } from "./support/held-requests.js";

const baseUrl = "https://compute.example";

describe("the client through setupServer and the stub over HTTP", () => {
  let overHttp: HeldAnswer[];
  let stub: RunningStub;

  beforeAll(async () => {
    stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: heldKeys });
    overHttp = await sendHeldRequests(stub.url);
  });
  afterAll(() => stub.close());

  it("give the same answers to the held requests, in order", async () => {
    const mocked = createStubHandlers({ baseUrl, apiKeys: heldKeys });
    const server = setupServer(...mocked.handlers);
    server.listen({ onUnhandledRequest: "error" });
    try {
      const answers = await sendHeldRequests(baseUrl);
      expect(answers.map((a) => a.name)).toEqual(heldRequests.map(([name]) => name));
      for (const [i, answer] of answers.entries()) expect(answer, answer.name).toEqual(overHttp[i]);
    } finally {
      server.close();
    }
  });

  it("the held requests cover every status the built-in data can cause", () => {
    expect(new Set(overHttp.map((a) => a.status))).toEqual(new Set([200, 400, 401, 403, 404, 409, 413, 415]));
  });
});

describe("state control as functions", () => {
  const mocked = createStubHandlers({ baseUrl, apiKeys: heldKeys });
  // Made once the other block's server is closed: MSW keeps one interception per process.
  let server: ReturnType<typeof setupServer>;
  let alice: ReturnType<typeof createComputeClient>;
  beforeAll(() => {
    server = setupServer(...mocked.handlers);
    server.listen({ onUnhandledRequest: "error" });
    // After listen(): the client takes the global fetch when it is made, and MSW's is the global one from then on.
    alice = createComputeClient({ baseUrl, apiKey: heldKeys.alice, retry: false });
  });
  afterAll(() => server.close());
  const machine = (state: "ACTIVE" | "FAILED") =>
    alice.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
      body: { state },
    });
  const cluster = async () =>
    unwrap(await alice.GET("/v1/resources/search", { params: { query: { query: "type:cluster cl-train-01" } } }))
      .results;

  it("reset() brings back the first answers after PATCHes and new keys; the keys given stay", async () => {
    const first = await cluster();
    unwrap(await machine("FAILED"));
    unwrap(await alice.POST("/v1/api-keys", { body: { apikeyId: "reset-key" } }));
    expect(await cluster()).not.toEqual(first);
    mocked.reset();
    expect(await cluster()).toEqual(first);
    // The id is free again, and alice's given key still works.
    expect((await alice.POST("/v1/api-keys", { body: { apikeyId: "reset-key" } })).response.status).toBe(200);
  });

  it("snapshot() → change → restore() gives back the snapshot, byte for byte", async () => {
    mocked.reset();
    const snapshot = mocked.snapshot();
    unwrap(await machine("FAILED"));
    expect(JSON.stringify(mocked.snapshot())).not.toBe(JSON.stringify(snapshot));
    mocked.restore(snapshot);
    expect(JSON.stringify(mocked.snapshot())).toBe(JSON.stringify(snapshot));
    expect(JSON.stringify(snapshot)).not.toContain(heldKeys.alice);
  });

  it("restore() refuses data that breaks the spec and changes nothing", async () => {
    const before = JSON.stringify(mocked.snapshot());
    const broken = { ...builtinFixtures(), clusters: [{ id: 7 }] } as unknown as ReturnType<typeof builtinFixtures>;
    expect(() => mocked.restore(broken)).toThrow(/cannot be served/);
    expect(JSON.stringify(mocked.snapshot())).toBe(before);
  });

  it("requests() shows what the client sent, a 400's violations and the user, never a key; clearRequests() empties it", async () => {
    mocked.clearRequests();
    unwrap(await machine("FAILED"));
    const { key } = unwrap(await alice.POST("/v1/api-keys", { body: { apikeyId: "journal-key" } }));
    await alice.GET("/v1/resources/search", { params: { query: { query: key } } });
    await alice.POST("/v1/api-keys", { body: { apikeyId: "UPPER" } });
    const entries = mocked.requests();
    expect(entries.map((e) => [e.method, e.path, e.status, e.operationId, e.userId])).toEqual([
      ["PATCH", "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01", 200, "updateClusterMachine", "alice"],
      ["POST", "/v1/api-keys", 200, "createApiKey", "alice"],
      ["GET", "/v1/resources/search", 200, "searchResources", "alice"],
      ["POST", "/v1/api-keys", 400, "createApiKey", "alice"],
    ]);
    expect(entries[0]?.body).toEqual({ state: "FAILED" });
    expect(entries[0]?.headers.authorization).toBe("Bearer [redacted]");
    expect(entries[2]?.query).toEqual({ query: "[redacted]" });
    expect(entries[3]?.violations?.map((v) => v.field)).toEqual(["apikeyId"]);
    expect(JSON.stringify(entries)).not.toContain(heldKeys.alice);
    expect(JSON.stringify(entries)).not.toContain(key);
    expect(mocked.requests({ operationId: "createApiKey", status: "4xx" })).toHaveLength(1);
    mocked.clearRequests();
    expect(mocked.requests()).toEqual([]);
  });

  it("a body nested 100,000 deep is answered 400 and journaled as a note, by the handlers and by the stub over HTTP", async () => {
    const nested = `{"volumeIds":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const patchNested = (url: string) =>
      fetch(`${url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${heldKeys.alice}`, "content-type": "application/json" },
        body: nested,
      });
    // Node 20 to 24 cannot JSON.stringify it (their stack ends first); Node 26's JSON.stringify can, and then it is
    // too long to keep. Either way the journal holds a note, not the body, and the stub goes on.
    const note = /^\[a body (nested too deeply to keep|of 200014 characters, not kept)\]$/;
    mocked.clearRequests();
    expect((await patchNested(baseUrl)).status).toBe(400);
    expect(mocked.requests()[0]?.body).toMatch(note);
    server.close();
    const stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: heldKeys });
    try {
      expect((await patchNested(stub.url)).status).toBe(400);
      const journal = (await (await fetch(`${stub.url}/__stub/requests`)).json()) as { requests: { body?: unknown }[] };
      expect(journal.requests.map((r) => r.body)).toEqual([expect.stringMatching(note)]);
    } finally {
      await stub.close();
      server.listen({ onUnhandledRequest: "error" });
    }
  });

  it("load() serves a generated data set and makes it what reset() goes back to", async () => {
    mocked.load(() => generateFixtures({ count: 50, seed: 3 }));
    const users = mocked.snapshot().users.map((u) => u.id);
    const generated = createStubHandlers({ baseUrl, fixtures: generateFixtures({ count: 50, seed: 3 }) });
    expect(users).toEqual(generated.snapshot().users.map((u) => u.id));
    mocked.reset();
    expect(mocked.snapshot().users.map((u) => u.id)).toEqual(users);
    mocked.load(builtinFixtures());
  });
});

describe("faults, as the stub's", () => {
  const search = "/v1/resources/search?query=type%3Acluster";
  /** What a caller sees of an answer: its status, the headers the faults set, and its body. */
  const answerOf = async (res: Response) => ({
    status: res.status,
    headers: Object.fromEntries(
      ["content-type", "retry-after", "preference-applied"].map((name) => [name, res.headers.get(name)]),
    ),
    body: await res.json(),
  });
  const send = async (url: string, prefer?: string, key: string = heldKeys.alice) =>
    answerOf(
      await fetch(`${url}${search}`, {
        headers: { authorization: `Bearer ${key}`, ...(prefer === undefined ? {} : { prefer }) },
      }),
    );
  /** The handlers of the running `bothWith`. */
  let mocked: ReturnType<typeof createStubHandlers>;
  /** The answers of the handlers (through setupServer) and of the real stub over HTTP, with the same faults. */
  async function bothWith(faults: FaultOptions, run: (url: string) => Promise<unknown>) {
    mocked = createStubHandlers({ baseUrl, apiKeys: heldKeys, faults });
    const server = setupServer(...mocked.handlers);
    server.listen({ onUnhandledRequest: "error" });
    let fromHandlers: unknown;
    try {
      fromHandlers = await run(baseUrl);
    } finally {
      server.close();
    }
    const stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: heldKeys, faults });
    try {
      return { fromHandlers, overHttp: await run(stub.url) };
    } finally {
      await stub.close();
    }
  }

  it("Prefer: a documented status injected with Preference-Applied, 200 as asked, a refused code and latency", async () => {
    const prefers = ["code=503", "code=429, latency=5", "code=200", "code=404", "latency=x", "code=401; x=1"];
    const { fromHandlers, overHttp } = await bothWith({}, async (url) => {
      const answers = [];
      for (const prefer of prefers) answers.push(await send(url, prefer));
      return answers;
    });
    expect(fromHandlers).toEqual(overHttp);
    expect((overHttp as { status: number }[]).map((a) => a.status)).toEqual([503, 429, 200, 400, 400, 401]);
    expect((overHttp as { headers: Record<string, string> }[])[0]?.headers).toMatchObject({
      "retry-after": "1",
      "preference-applied": "code=503",
    });
  });

  it("Prefer is ignored with prefer: false", async () => {
    const { fromHandlers, overHttp } = await bothWith({ prefer: false }, (url) => send(url, "code=503"));
    expect(fromHandlers).toEqual(overHttp);
    expect(overHttp).toMatchObject({ status: 200, headers: { "preference-applied": null } });
  });

  it("faults 503 at 100 %: every API request 503 with Retry-After and the error body; a seeded mix replays", async () => {
    const { fromHandlers, overHttp } = await bothWith({ faults: [{ status: 503, share: 1 }] }, (url) => send(url));
    expect(fromHandlers).toEqual(overHttp);
    expect(overHttp).toMatchObject({ status: 503, headers: { "retry-after": "1" }, body: { code: 503 } });
    const mix = {
      faults: [
        { status: 429, share: 0.2 },
        { status: 500, share: 0.2 },
      ],
      seed: 5,
    };
    const statuses = await bothWith(mix, async (url) => {
      const seen = [];
      for (let i = 0; i < 30; i++) seen.push((await send(url)).status);
      return seen;
    });
    expect(statuses.fromHandlers).toEqual(statuses.overHttp);
    expect(new Set(statuses.overHttp as number[])).toEqual(new Set([200, 429, 500]));
  });

  it("the rate limit: over it, 429 with Retry-After, per API key", async () => {
    const { fromHandlers, overHttp } = await bothWith({ rateLimit: 1 / 60 }, async (url) => [
      await send(url),
      await send(url),
      await send(url, undefined, heldKeys.bob),
    ]);
    expect(fromHandlers).toEqual(overHttp);
    expect((overHttp as { status: number }[]).map((a) => a.status)).toEqual([200, 429, 200]);
    expect((overHttp as { headers: Record<string, string> }[])[1]?.headers["retry-after"]).toBe("60");
  });

  it("drop: the handlers answer a network error, as the stub destroys the connection", async () => {
    const { fromHandlers, overHttp } = await bothWith({ drop: 1 }, (url) =>
      send(url).then(
        () => "answered",
        (error: Error) => error.name,
      ),
    );
    expect(fromHandlers).toBe("TypeError");
    expect(overHttp).toBe("TypeError");
  });

  it("setFaults() changes the faults for the next request, as PATCH /__stub/faults; faultSettings() shows them", async () => {
    const { fromHandlers, overHttp } = await bothWith({}, async (url) => {
      const change = async (patch: Record<string, unknown>) => {
        if (url === baseUrl) return mocked.setFaults(patch);
        await fetch(`${url}/__stub/faults`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(patch),
        });
      };
      const before = await send(url);
      await change({ faults: "500=100%" });
      const during = await send(url);
      await change({ faults: null });
      return [before, during, await send(url)];
    });
    expect(fromHandlers).toEqual(overHttp);
    expect((overHttp as { status: number }[]).map((a) => a.status)).toEqual([200, 500, 200]);
    mocked.setFaults({ rateLimit: "5/s", seed: 3 });
    expect(mocked.faultSettings()).toEqual({ rateLimit: 5, seed: 3 });
  });
});

describe("the README's MSW examples, as written", () => {
  const packageDir = fileURLToPath(new URL("..", import.meta.url));
  const repository = join(packageDir, "..", "..");
  const examples = join(packageDir, "examples", "msw");
  // The README and its reference page (docs/stub-server.md), which holds the browser example.
  const readme = ["README.md", "../../docs/stub-server.md"]
    .map((file) => readFileSync(join(packageDir, file), "utf8"))
    .join("\n");
  /** The fenced block that follows `<!-- marker -->` in the README or its reference page. */
  const blockAfter = (marker: string) => {
    const at = readme.indexOf(`<!-- ${marker} -->`);
    return at < 0 ? undefined : /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  };

  it.each([
    ["file: examples/msw/msw.test.ts", "msw.test.ts"],
    ["file: examples/msw/browser.ts", "browser.ts"],
    ["file: examples/msw/answers.test.ts", "answers.test.ts"],
  ])("the README shows %s as it is", (marker, file) => {
    expect(blockAfter(marker)).toBe(readFileSync(join(examples, file), "utf8"));
  });

  it("the setupServer example passes under a vitest of its own", { timeout: 900_000 }, async () => {
    const config = join(mkdtempSync(join(tmpdir(), "stub-msw-")), "vitest.config.ts");
    // The repository's own vitest set-up (its packages resolve to their sources), on the example's folder instead of
    // the repository's two projects.
    writeFileSync(
      config,
      `import root from ${JSON.stringify(join(repository, "vitest.config.ts"))};
export default { ...root, test: { ...root.test, projects: undefined, root: ${JSON.stringify(examples)}, include: ["*.test.ts"], typecheck: { enabled: false } } };
`,
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(repository, "node_modules", "vitest", "vitest.mjs"), "run", "--config", config, "--reporter", "json"],
      { cwd: repository, timeout: 720_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: "true" } },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the example failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as { numPassedTests: number; numFailedTests: number };
    expect({ passed: report.numPassedTests, failed: report.numFailedTests }).toEqual({ passed: 4, failed: 0 });
  });
});
