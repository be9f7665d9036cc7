/**
 * Recording (`--record`): the real gateway in front of the Postgres example (PGlite in memory, a backend that is
 * not the stub) records a session; the stub started on the recording (`compute-stub --data`) answers the same
 * searches with the same results. Nothing secret reaches the file; the stub's admin API is never forwarded.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec } from "@compute-api/contract";
import { startPostgresServer } from "@compute-api/example-postgres";
import { builtinFixtures, loadFixtures } from "@compute-api/fixtures";
import { type CliResult, createApp, runCli } from "@compute-api/stub-server";
import { listenLocal } from "@compute-api/test-support";
import { CommanderError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCommandLine } from "../src/cli.js";
import { createRecorder } from "../src/record.js";
import { json, type TestGateway, testGateway, testUpstream } from "./support/servers.js";

const spec = loadSpec();
const keys = { alice: "cak_record-alice-0001", bob: "cak_record-bob-0002" };
const directory = mkdtempSync(join(tmpdir(), "gateway-record-"));

/** Every type, so that each project's resources are all recorded (its resourceCount is the stub's count), and more. */
const searches = [
  ...["billingAccount", "project", "cluster", "machine", "virtualMachine", "disk", "image", "network", "volume"].map(
    (type) => `type:${type}`,
  ),
  "train",
  "cl-train-01",
  "alpha gpu",
  "type:cluster 1",
  "active",
];

const search = (base: string, key: string, query: string) =>
  fetch(`${base}/v1/resources/search?query=${encodeURIComponent(query)}`, {
    headers: { authorization: `Bearer ${key}` },
  });

describe("compute-gateway --record in front of the Postgres example", () => {
  const file = join(directory, "session.yaml");
  let backend: Awaited<ReturnType<typeof startPostgresServer>>;
  let gateway: TestGateway;
  let created: string;
  let finalAnswers: string[];

  beforeAll(async () => {
    backend = await startPostgresServer({ port: 0, host: "127.0.0.1", apiKeys: keys });
    gateway = await testGateway({ upstream: backend.url, record: file });
    // The session: every search, a PATCH, a new key, and the searches again (the newest answers win).
    for (const query of searches) expect((await search(gateway.url, keys.alice, query)).status).toBe(200);
    const patched = await fetch(`${gateway.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${keys.alice}`, "content-type": "application/json" },
      body: JSON.stringify({ priceHr: { value: "6.5" }, powerState: "OFF" }),
    });
    expect(patched.status).toBe(200);
    const key = await fetch(`${gateway.url}/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.alice}`, "content-type": "application/json" },
      body: JSON.stringify({ apikeyId: "recorded-session" }),
    });
    created = ((await key.json()) as { key: string }).key;
    finalAnswers = [];
    for (const query of searches) finalAnswers.push(await (await search(gateway.url, keys.alice, query)).text());
    // The drain's end: the gateway closes, and the recording is written a last time.
    await gateway.close();
  }, 360_000);
  afterAll(async () => {
    await backend?.close();
  });

  it("writes a fixture file the stub accepts, which says how to add a user and holds no key", () => {
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^# Recorded by compute-gateway --record/);
    expect(text).toMatch(/To add a user, add an entry to "users"/);
    for (const secret of [keys.alice, created, "Bearer", "authorization"]) expect(text).not.toContain(secret);
    const data = loadFixtures(file, spec);
    expect(data.users.map((u) => u.id)).toEqual(["recorded"]);
    expect(data.users[0]?.apiKeys).toBeUndefined();
    // The PATCH's answer is in its cluster.
    const machine = data.clusters?.flatMap((c) => c.machines ?? []).find((m) => m.id === "cm-alpha-01");
    expect(machine).toMatchObject({ priceHr: { value: "6.5" }, powerState: "OFF" });
    // alice's resources only: bob's proj-gamma was never answered.
    expect(data.projects?.map((p) => p.id)).toEqual(["proj-alpha", "proj-beta"]);
  });

  it("serves the recording with compute-stub --data: the same searches give the same results", async () => {
    let result: CliResult | undefined;
    try {
      process.env.COMPUTE_API_KEY = "cak_replay-0001";
      result = await runCli(["--data", file, "--port", "0", "--log-level", "silent"], {
        stdout: () => {},
        stderr: (text) => {
          throw new Error(text);
        },
      });
      const url = result.stub?.url ?? "";
      for (const [i, query] of searches.entries()) {
        const answer = await (await search(url, "cak_replay-0001", query)).text();
        expect(JSON.parse(answer), query).toEqual(JSON.parse(finalAnswers[i] ?? ""));
      }
    } finally {
      delete process.env.COMPUTE_API_KEY;
      await result?.stub?.close();
    }
  });
});

describe("the recorder", () => {
  it("writes periodically and atomically, without waiting for the end", async () => {
    const file = join(directory, "periodic.yml");
    const recorder = createRecorder({ file, intervalMs: 50 });
    await recorder.start();
    const answer = {
      results: [
        {
          resourceName: "billingAccounts/ba-1",
          resourceType: "billingAccount",
          score: 100,
          billingAccount: { id: "ba-1" },
        },
      ],
    };
    recorder.answered("searchResources", 200, Buffer.from(JSON.stringify(answer)));
    await expect.poll(() => readFileSync(file, "utf8"), { timeout: 15_000 }).toContain('"id": "ba-1"');
    await recorder.close();
  });

  it("keeps no string of the form of a key, makes stand-ins for what answers named but never showed, and reads nothing else", async () => {
    const file = join(directory, "redacted.yaml");
    const data = builtinFixtures();
    const account = data.billingAccounts?.[0];
    if (account) account.displayName = "pasted cak_leaked-key-123 by mistake";
    const upstream = await listenLocal((await createApp({ fixtures: data, apiKeys: keys })).app);
    const gateway = await testGateway({ upstream: upstream.url, record: file });
    try {
      await search(gateway.url, keys.alice, "type:billingAccount");
      await search(gateway.url, keys.alice, "type:volume");
      await fetch(`${gateway.url}/v1/api-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.alice}`, "content-type": "application/json" },
        body: JSON.stringify({ apikeyId: "not-recorded" }),
      });
      // An answer the contract refuses is not recorded either: only searchResources and updateClusterMachine are.
    } finally {
      await gateway.close();
      await upstream.close();
    }
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("cak_");
    expect(text).toContain("pasted [redacted] by mistake");
    expect(text).not.toContain("not-recorded");
    expect(text).toMatch(/Stand-ins, with their ids only: the projects proj-alpha, proj-beta/);
    expect(loadFixtures(file, spec).volumes?.length).toBeGreaterThan(0);
  });
});

describe("compute-gateway --record flags", () => {
  const upstream = ["--upstream", "http://127.0.0.1:4010"];
  it.each([
    ["a file the stub reads as JSON", ["--record", "x.json"], /name a \.yaml or \.yml file/],
    ["more than one worker", ["--record", "x.yaml", "--workers", "2"], /--workers 1/],
    ["no response check", ["--record", "x.yaml", "--response-validation", "off"], /enforce or report/],
  ])("refuses --record with %s (exit 2)", (_name, args, message) => {
    let thrown: unknown;
    try {
      parseCommandLine([...upstream, ...args]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CommanderError);
    expect((thrown as CommanderError).exitCode).toBe(2);
    expect((thrown as CommanderError).message).toMatch(message);
  });

  it("takes --record or COMPUTE_GATEWAY_RECORD", () => {
    expect(parseCommandLine([...upstream, "--record", "a.yaml"]).record).toBe("a.yaml");
    process.env.COMPUTE_GATEWAY_RECORD = "b.yaml";
    try {
      expect(parseCommandLine(upstream).record).toBe("b.yaml");
    } finally {
      delete process.env.COMPUTE_GATEWAY_RECORD;
    }
  });
});

describe("the stub's admin API through the gateway", () => {
  let gateway: TestGateway;
  let passthrough: TestGateway;
  let upstream: Awaited<ReturnType<typeof testUpstream>>;
  beforeAll(async () => {
    upstream = await testUpstream();
    gateway = await testGateway({ upstream: upstream.url });
    passthrough = await testGateway({ upstream: upstream.url, passthroughUnknown: true });
  });
  afterAll(async () => {
    await gateway.close();
    await passthrough.close();
    await upstream.close();
  });

  it.each([
    ["POST", "/__stub/reset"],
    ["GET", "/__stub/"],
    ["GET", "/__stub"],
    ["GET", "/__STUB/requests"],
    ["POST", "/%5F%5Fstub/restore"],
    ["POST", "/v1/../__stub/reset"],
    ["POST", "/v1/%2e%2e/__stub/reset"],
    ["POST", "//__stub//reset"],
    ["GET", "/__stub/snapshot?x=1"],
    ["OPTIONS", "/__stub/reset"],
  ])(
    "answers %s %s with 404 in the error body and forwards nothing, with or without --passthrough-unknown",
    async (method, path) => {
      for (const g of [gateway, passthrough]) {
        const response = await fetch(`${g.url}${path}`, {
          method,
          headers: {
            "content-type": "application/json",
            origin: "https://app.example",
            "access-control-request-method": "POST",
          },
          ...(method === "POST" ? { body: "{}" } : {}),
        });
        expect(response.status).toBe(404);
        const body = (await response.json()) as { code: number; details: { reason?: string }[] };
        expect(body.code).toBe(404);
        expect(body.details.map((d) => d.reason)).toContain("NOT_FOUND");
      }
      expect(upstream.received).toEqual([]);
    },
  );

  it("still forwards what is merely alike with --passthrough-unknown (/__stubs, /v1/__stub)", async () => {
    for (const path of ["/__stubs/x", "/v1x/__stub/reset"]) {
      const response = await fetch(`${passthrough.url}${path}`);
      expect(response.status, path).toBe(200);
    }
    expect(upstream.received.map((r) => r.url)).toEqual(["/__stubs/x", "/v1x/__stub/reset"]);
    upstream.received.length = 0;
  });
});

describe("recorded values that try to leave their place", () => {
  /** A search answer the contract accepts, with what a hostile or careless backend put in it. */
  const answer = {
    results: [
      {
        resourceName: "billingAccounts/ba-1",
        resourceType: "billingAccount",
        score: 100,
        billingAccount: {
          id: "ba-1",
          displayName: "CAK_UPPER-0001 cak%5Fencoded-0002 cak%5flower-0003 %63%41K%5F0004 end",
          "cak_as-a-field-name-0005": "x",
        },
      },
      {
        resourceName: "projects/evil/clusters/cl-1",
        resourceType: "cluster",
        score: 90,
        cluster: {
          id: "cl-1",
          projectId: 'evil\r\n{"users": []}\n# \u2028',
          dataCenterId: "dc-1",
          machineTypeId: "mt-1",
          machineCount: 0,
        },
      },
      {
        resourceName: "projects/proj-x/clusters/cl-2",
        resourceType: "cluster",
        score: 80,
        cluster: {
          id: "cl-2",
          projectId: "proj-x",
          dataCenterId: "dc-1",
          machineTypeId: "mt-1",
          machineCount: 2,
          machines: [
            { id: "cm-1", projectId: "proj-x", volumeIds: ['vol\n{"users": []}'] },
            { id: "cm\r\n2", projectId: "proj-x" },
          ],
        },
      },
    ],
  };
  let file: string;

  beforeAll(async () => {
    file = join(directory, "hostile.yaml");
    const upstream = await testUpstream();
    upstream.answer = (_req, res) => json(res, 200, answer);
    const gateway = await testGateway({ upstream: upstream.url, record: file });
    try {
      const res = await search(gateway.url, keys.alice, "type:billingAccount");
      expect(res.status).toBe(200);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it("ids with CR/LF stay in their comment lines, and the recording still loads without them", () => {
    const data = loadFixtures(file, spec);
    expect(data.clusters).toMatchObject([{ id: "cl-2", machines: [{ id: "cm-1", volumeIds: [] }] }]);
    const text = readFileSync(file, "utf8");
    // The data starts at the line "{"; every line before it is a comment.
    const header = text.slice(0, text.indexOf("\n{\n"));
    expect(header.split("\n").filter((line) => !line.startsWith("#"))).toEqual([]);
    // Named, escaped: what the stub could not serve is left out (an id of a cluster, a machine, a volume).
    expect(header).toContain('cluster evil\\u000d\\u000a{"users": []}\\u000a# \\u2028/cl-1');
    expect(header).toContain("clusterMachine proj-x/cm\\u000d\\u000a2");
    expect(header).toContain('proj-x/cm-1 → vol\\u000a{"users": []}');
  });

  it("scrubs a key in any spelling: CAK_…, cak%5F…, cak%5f…, every character escaped, a key as a field name", () => {
    const text = readFileSync(file, "utf8");
    for (const secret of ["0001", "0002", "0003", "0004", "0005"]) expect(text).not.toContain(secret);
    expect(loadFixtures(file, spec).billingAccounts?.find((b) => b.id === "ba-1")).toEqual({
      id: "ba-1",
      displayName: "[redacted] [redacted] [redacted] [redacted] end",
      "[redacted]": "x",
    });
  });
});
