/**
 * Verification on the request journal: filters by operation, path (`*`), query, headers and a partial body; a count
 * that throws the near misses when it is not met; an unknown filter refused; injected faults and drops journaled with
 * their operation, user and fault — through the helper over HTTP, the admin API and the MSW handlers alike.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { killGroup } from "@compute-api/test-support";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { onBothSides } from "./support/both-sides.js";
import { json } from "./support/stub.js";

const machinePath = (id: string) => `/v1/projects/proj-alpha/cluster-machines/${id}`;

describe("requests(filter) and expectRequests(filter, count) on both sides", () => {
  it("filter by operation, path, query, header and a partial body", async () => {
    await onBothSides(async (side) => {
      await side.call(machinePath("cm-alpha-01"), { ...json("PATCH", { powerState: "ON", state: "ACTIVE" }) });
      await side.call(machinePath("cm-alpha-02"), {
        ...json("PATCH", { powerState: "OFF" }),
        headers: { "x-run": "7" },
      });
      await side.call("/v1/resources/search?query=train", { as: "bob" });
      const seqs = async (filter: Parameters<typeof side.requests>[0]) =>
        (await side.requests(filter)).map((e) => e.path);
      expect(await seqs({ operationId: "updateClusterMachine" }), side.name).toEqual([
        machinePath("cm-alpha-01"),
        machinePath("cm-alpha-02"),
      ]);
      expect(await seqs({ path: "/v1/projects/*/cluster-machines/*-02" }), side.name).toEqual([
        machinePath("cm-alpha-02"),
      ]);
      expect(await seqs({ body: { powerState: "ON" } }), side.name).toEqual([machinePath("cm-alpha-01")]);
      expect(await seqs({ headers: { "X-Run": "7" } }), side.name).toEqual([machinePath("cm-alpha-02")]);
      expect(await seqs({ query: { query: "train" } }), side.name).toEqual(["/v1/resources/search"]);
      expect(await seqs({ method: "patch", body: { powerState: "ON", state: "FAILED" } }), side.name).toEqual([]);
      const [bobs] = await side.expectRequests({ operationId: "searchResources", query: { query: "train" } }, 1);
      expect(bobs?.userId, side.name).toBe("bob");
    });
  });

  it("a count that is not met throws the closest requests and how each differs", async () => {
    await onBothSides(async (side) => {
      await side.call(machinePath("cm-alpha-01"), json("PATCH", { powerState: "OFF" }));
      await side.call("/v1/resources/search?query=train");
      const report = await side
        .expectRequests({ operationId: "updateClusterMachine", body: { powerState: "ON" } }, 1)
        .then(
          () => "met",
          (error: Error) => error.message,
        );
      expect(report, side.name).toContain(
        'expected 1 request matching {"operationId":"updateClusterMachine","body":{"powerState":"ON"}}, found 0',
      );
      // The PATCH first (one difference), then the search (its operation and the body).
      expect(report.split("\n").slice(1), side.name).toEqual([
        "the closest:",
        `  #1 PATCH ${machinePath("cm-alpha-01")} → 200 (updateClusterMachine)`,
        '    - body.powerState: expected "ON", was "OFF"',
        "  #2 GET /v1/resources/search?query=train → 200 (searchResources)",
        '    - operationId: expected "updateClusterMachine", was "searchResources"',
        "    - body: expected an object, was absent",
      ]);
      const none = await side.expectRequests({ operationId: "createApiKey" }, 0);
      expect(none, side.name).toEqual([]);
      const two = await side.expectRequests({ path: "/v1/*" }, 3).catch((error: Error) => error.message);
      expect(two, side.name).toMatch(/^expected 3 requests matching \{"path":"\/v1\/\*"\}, found 2: #1, #2\n/);
    });
  });

  it("an unknown filter is refused, never read as no filter (a check of zero calls would pass)", async () => {
    await onBothSides(async (side) => {
      await side.call("/v1/resources/search?query=train");
      const refused = (filter: object) =>
        side.requests(filter as never).then(
          (entries) => `${entries.length} entries`,
          (error: Error) => error.message,
        );
      expect(await refused({ operationid: "x" }), side.name).toContain("operationid");
      expect(await refused({ status: "2x" }), side.name).toContain("status");
      expect(await refused({ query: { query: 1 } }), side.name).toContain("query");
      const counted = await side
        .expectRequests({ operationid: "x" } as never, 0)
        .catch((error: Error) => error.message);
      expect(counted, side.name).toMatch(/operationid\W+(description\W+)?is not a filter of the journal/);
    });
  });
});

describe("injected faults and drops in the journal", () => {
  it("a run's 503 is journaled with its operation, user and fault on both sides", async () => {
    await onBothSides(
      async (side) => {
        expect((await side.call("/v1/resources/search?query=train", { as: "bob" })).status, side.name).toBe(503);
        const [entry] = await side.expectRequests({ operationId: "searchResources", status: 503 }, 1);
        expect([entry?.userId, entry?.fault], side.name).toEqual(["bob", "503"]);
      },
      { faults: [{ status: 503, share: 1 }] },
    );
  });

  it("a dropped request is journaled with its operation, user and fault, and no status, on both sides", async () => {
    await onBothSides(
      async (side) => {
        const sent = await side.call(machinePath("cm-alpha-01"), json("PATCH", { powerState: "ON" })).then(
          () => "answered",
          (error: Error) => error.name,
        );
        expect(sent, side.name).toBe("TypeError");
        const entries = await vi.waitFor(async () => {
          const found = await side.requests({ operationId: "updateClusterMachine" });
          expect(found).toHaveLength(1);
          return found;
        });
        expect(
          entries.map((e) => [e.status, e.userId, e.fault, e.body]),
          side.name,
        ).toEqual([[null, "alice", "drop", undefined]]);
      },
      { drop: 1 },
    );
  });

  it("Prefer's injected status and the rate limit are journaled as faults by the MSW handlers, as by the stub", async () => {
    await onBothSides(
      async (side) => {
        await side.call("/v1/resources/search?query=a", { headers: { prefer: "code=429" } });
        await side.call("/v1/resources/search?query=a");
        await side.call("/v1/resources/search?query=a");
        const journal = await side.requests();
        expect(
          journal.map((e) => [e.status, e.fault]),
          side.name,
        ).toEqual([
          [429, "prefer 429"],
          [200, undefined],
          [429, "rate-limit"],
        ]);
      },
      { rateLimit: 2 },
    );
  });
});

describe("the journal's path filter", () => {
  it("takes time in proportion to the path and the pattern, whatever the pattern (the stub in its own process)", async () => {
    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--conditions=@compute-api/source", "--import", "tsx", bin, "--port", "0", "--log-level", "silent"],
      { stdio: ["ignore", "pipe", "ignore"], detached: true },
    );
    // Stopped however the test ends, a timeout included: a stub stuck in a backtracking filter heeds only SIGKILL.
    const requests = new AbortController();
    onTestFinished(() => {
      requests.abort();
      killGroup(child.pid ?? 0);
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
    await vi.waitFor(() => expect(out).toMatch(/Bearer (\S+)" "(\S+)"/), { timeout: 90_000, interval: 100 });
    const [, key, url] = /Bearer (\S+)" "(\S+)"/.exec(out) ?? [];
    const origin = new URL(url ?? "").origin;
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${origin}${path}`, { headers, signal: requests.signal });
    await get(`/v1/${"a".repeat(4000)}`, { authorization: `Bearer ${key}` });
    // As a regular expression of `.*`s, this pattern backtracks through about 4000^9 ways on that path.
    const found = await get(`/__stub/requests?path=${encodeURIComponent(`${"*a".repeat(9)}*b`)}`);
    expect([found.status, (await found.json()).requests]).toEqual([200, []]);
    const whole = await get(`/__stub/requests?path=${encodeURIComponent(`${"*a".repeat(9)}*`)}`);
    expect((await whole.json()).requests).toHaveLength(1);
  });
});
