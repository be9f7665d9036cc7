/**
 * Forwarding (`forward`, `compute-stub --forward`): the stub in front of a real backend that is not the stub — the
 * Postgres example on PGlite — through the real client. What the stub's data holds is answered by the stub; a machine
 * it does not hold and a key it does not know go to the backend through the gateway's checks (a request the spec
 * refuses stops at the stub, an answer it does not allow is a 502, a backend down a 503), journaled as forwarded; the
 * recording of that traffic holds users and keys only when asked, and a key never in clear.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createComputeClient } from "@compute-api/client";
import { catalogueError, loadSpec } from "@compute-api/contract";
import { startPostgresServer } from "@compute-api/example-postgres";
import { builtinFixtures, type Fixtures, loadFixtures } from "@compute-api/fixtures";
import { hashApiKey, resourceTypes } from "@compute-api/rules";
import { captureLogs, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { type StubHandle, startStub } from "../src/testing.js";

const spec = loadSpec();
const keys = { alice: "cak_forward-alice-0001", bob: "cak_forward-bob-0002" };
const directory = mkdtempSync(join(tmpdir(), "h40-forward-"));

/** Every type, so that each project's resources are all recorded (its resourceCount is the stub's count). */
const queries = [...resourceTypes.values()].map((type) => `type:${type}`);

/** The built-in data without cm-alpha-02: the machine only the backend holds. */
function stubData(): Fixtures {
  const data = builtinFixtures();
  for (const cluster of data.clusters ?? [])
    cluster.machines = (cluster.machines ?? []).filter((machine) => machine.id !== "cm-alpha-02");
  return data;
}

const client = (baseUrl: string, apiKey: string) => createComputeClient({ baseUrl, apiKey, retry: false });
const patch = (baseUrl: string, apiKey: string, id: string, body: Record<string, unknown>) =>
  client(baseUrl, apiKey).PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
    params: { path: { projectId: "proj-alpha", id } },
    body: body as never,
  });
const search = (baseUrl: string, apiKey: string, query: string) =>
  client(baseUrl, apiKey).GET("/v1/resources/search", { params: { query: { query } } });

describe("the stub with --forward in front of the Postgres example", () => {
  let backend: Awaited<ReturnType<typeof startPostgresServer>>;
  let stub: StubHandle;
  let backendRequests = 0;
  const logs = captureLogs({ level: "info" });

  beforeAll(async () => {
    backend = await startPostgresServer({ port: 0, host: "127.0.0.1", apiKeys: keys });
    backend.server.on("request", () => backendRequests++);
    stub = await startStub({
      fixtures: stubData(),
      apiKey: keys.alice,
      forward: { url: backend.url },
      logger: logs.logger,
    });
  }, 360_000);
  afterAll(async () => {
    await stub?.close();
    await backend?.close();
  });

  it("answers what its data holds itself: the backend sees nothing", async () => {
    const before = backendRequests;
    const { data, response } = await patch(stub.url, keys.alice, "cm-alpha-01", { powerState: "OFF" });
    expect(response.status).toBe(200);
    expect(data?.powerState).toBe("OFF");
    expect((await search(stub.url, keys.alice, "cm-alpha-02")).data?.results).toEqual([]);
    expect(backendRequests).toBe(before);
    const [entry] = await stub.requests({ operationId: "updateClusterMachine", limit: 1 });
    expect(entry?.forwarded).toBeUndefined();
  });

  it("forwards a machine its data does not hold, answered by Postgres and journaled as forwarded", async () => {
    const before = backendRequests;
    const { data, response } = await patch(stub.url, keys.alice, "cm-alpha-02", { powerState: "OFF" });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ id: "cm-alpha-02", projectId: "proj-alpha", powerState: "OFF" });
    expect(backendRequests).toBe(before + 1);
    const [entry] = await stub.requests({ limit: 1 });
    expect(entry).toMatchObject({
      forwarded: true,
      status: 200,
      operationId: "updateClusterMachine",
      userId: "alice",
      path: "/v1/projects/proj-alpha/cluster-machines/cm-alpha-02",
      body: { powerState: "OFF" },
      headers: { authorization: "Bearer [redacted]" },
    });
  });

  it("forwards a key it does not know instead of refusing it: bob's search is Postgres's answer", async () => {
    const before = backendRequests;
    const { data, response } = await search(stub.url, keys.bob, "type:project");
    expect(response.status).toBe(200);
    const direct = await search(backend.url, keys.bob, "type:project");
    expect(data).toEqual(direct.data);
    expect(data?.results.length).toBeGreaterThan(0);
    expect(backendRequests).toBe(before + 2);
    const [entry] = await stub.requests({ operationId: "searchResources", limit: 1 });
    expect(entry).toMatchObject({ forwarded: true, status: 200, query: { query: "type:project" } });
    expect(entry?.userId).toBeUndefined();
  });

  it("refuses a forwarded request the spec refuses with 400, without reaching the backend", async () => {
    const before = backendRequests;
    const { error, response } = await patch(stub.url, keys.bob, "cm-alpha-02", { powerState: "SIDEWAYS" });
    expect(response.status).toBe(400);
    expect(JSON.stringify(error)).toMatch(/powerState/);
    expect(backendRequests).toBe(before);
    const [entry] = await stub.requests({ limit: 1 });
    expect(entry).toMatchObject({ forwarded: true, status: 400 });
  });

  it("answers a request without a key itself (401), and forwards a path the spec does not describe", async () => {
    const before = backendRequests;
    expect((await fetch(`${stub.url}/v1/resources/search?query=x`)).status).toBe(401);
    expect(backendRequests).toBe(before);
    const unknown = await fetch(`${stub.url}/v1/projects/proj-alpha/clusters`, {
      headers: { authorization: `Bearer ${keys.bob}` },
    });
    // Postgres's own answer to a path it does not serve.
    expect(unknown.status).toBe(404);
    expect(backendRequests).toBe(before + 1);
    const [entry] = await stub.requests({ limit: 1 });
    expect(entry).toMatchObject({ forwarded: true, status: 404, path: "/v1/projects/proj-alpha/clusters" });
  });

  it("matches stubbed answers before forwarding: a key it does not know gets the answer, the backend nothing", async () => {
    const before = backendRequests;
    const id = await stub.answer({
      request: { operationId: "searchResources", query: { query: "type:volume" } },
      answer: { status: 200, headers: { "x-stubbed": "yes" }, body: { results: [] } },
    });
    try {
      const answered = await search(stub.url, keys.bob, "type:volume");
      expect([answered.response.status, answered.response.headers.get("x-stubbed"), answered.data]).toEqual([
        200,
        "yes",
        { results: [] },
      ]);
      expect(backendRequests).toBe(before);
      const [entry] = await stub.requests({ operationId: "searchResources", limit: 1 });
      expect(entry).toMatchObject({ answerId: id, status: 200, query: { query: "type:volume" } });
      expect(entry?.forwarded).toBeUndefined();
      expect(entry?.userId).toBeUndefined();
      // A query the answer does not match still goes to the backend.
      expect((await search(stub.url, keys.bob, "type:project")).response.status).toBe(200);
      expect(backendRequests).toBe(before + 1);
      // A request the spec refuses is refused as always (400), answer or not.
      expect((await search(stub.url, keys.bob, "")).response.status).toBe(400);
      expect(backendRequests).toBe(before + 1);
    } finally {
      await stub.removeAnswer(id);
    }
  });

  it("keeps for a stubbed answer a forwarded PATCH it matches but for the body: the body decides, 401 otherwise", async () => {
    const before = backendRequests;
    const id = await stub.answer({
      request: { operationId: "updateClusterMachine", path: "*/cm-alpha-02", body: { powerState: "ON" } },
      answer: { status: 503, body: { code: 503, message: "the machine is away for the test" } },
    });
    try {
      // Alice's key is the stub's, the machine is not: the answer, not the backend's machine.
      expect((await patch(stub.url, keys.alice, "cm-alpha-02", { powerState: "ON" })).response.status).toBe(503);
      expect((await patch(stub.url, keys.bob, "cm-alpha-02", { powerState: "ON" })).response.status).toBe(503);
      // Read before the stub knew the answer would not match: never forwarded; a key the stub does not know is refused.
      const missed = await patch(stub.url, keys.bob, "cm-alpha-02", { powerState: "OFF" });
      expect([missed.response.status, missed.error]).toEqual([
        401,
        expect.objectContaining({ code: 401, message: "the API key is not valid" }),
      ]);
      expect(backendRequests).toBe(before);
    } finally {
      await stub.removeAnswer(id);
    }
  });

  it("decides with the request's session's data: a key made in a session is the stub's there, never forwarded", async () => {
    const session = stub.session();
    try {
      const created = await fetch(`${stub.url}/v1/api-keys`, {
        method: "POST",
        headers: { ...session.headers, authorization: `Bearer ${keys.alice}`, "content-type": "application/json" },
        body: JSON.stringify({ apikeyId: "forward-session" }),
      });
      expect(created.status).toBe(200);
      const { key } = (await created.json()) as { key: string };
      const before = backendRequests;
      const answered = await fetch(`${stub.url}/v1/resources/search?query=cl-train-01`, {
        headers: { ...session.headers, authorization: `Bearer ${key}` },
      });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
      expect(backendRequests).toBe(before);
      const [entry] = await session.requests({ operationId: "searchResources", limit: 1 });
      expect(entry).toMatchObject({ status: 200, userId: "alice" });
      expect(entry?.forwarded).toBeUndefined();
    } finally {
      await session.close();
    }
  });

  it("never logs a key, and logs one line per forwarded request, marked forwarded", () => {
    expect(logs.text()).not.toContain(keys.bob);
    expect(logs.text()).not.toContain(keys.alice);
    const lines = logs.lines.filter((line) => line.forwarded === true);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.some((line) => line.operationId === "updateClusterMachine")).toBe(true);
  });
});

describe("a forwarding stub whose backend breaks", () => {
  it("answers a backend answer the spec does not allow with 502 and the error body, as the gateway does", async () => {
    const broken = await listenLocal(
      createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"results": "not a list"}');
      }),
    );
    const stub = await startStub({ apiKey: keys.alice, forward: { url: broken.url } });
    try {
      const { error, response } = await search(stub.url, keys.bob, "anything");
      expect(response.status).toBe(502);
      expect(error).toMatchObject({ message: catalogueError("INVALID_UPSTREAM_RESPONSE").message });
      // What the stub's data holds is still the stub's.
      expect((await search(stub.url, keys.alice, "cl-train-01")).response.status).toBe(200);
    } finally {
      await stub.close();
      await broken.close();
    }
  });

  it("answers 503 with the error body when the backend is down", async () => {
    const gone = await listenLocal(createServer());
    const url = gone.url;
    await gone.close();
    const stub = await startStub({ apiKey: keys.alice, forward: { url } });
    try {
      const { error, response } = await search(stub.url, keys.bob, "anything");
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(error).toMatchObject({ message: catalogueError("UPSTREAM_UNAVAILABLE").message });
    } finally {
      await stub.close();
    }
  });
});

describe("recording what the stub forwards", () => {
  let backend: Awaited<ReturnType<typeof startPostgresServer>>;
  beforeAll(async () => {
    backend = await startPostgresServer({ port: 0, host: "127.0.0.1", apiKeys: keys });
  }, 360_000);
  afterAll(async () => {
    await backend?.close();
  });

  /** Bob's session through a stub recording into `file`; the key createApiKey made him. */
  async function session(file: string, recordKeys: boolean): Promise<{ created: string; answers: unknown[] }> {
    const stub = await startStub({ apiKey: keys.alice, forward: { url: backend.url, record: file, recordKeys } });
    const answers: unknown[] = [];
    try {
      for (const query of queries) answers.push((await search(stub.url, keys.bob, query)).data);
      const { data } = await client(stub.url, keys.bob).POST("/v1/api-keys", {
        body: { apikeyId: `rec-${recordKeys}` },
      });
      return { created: data?.key ?? "", answers };
    } finally {
      await stub.close();
    }
  }

  it("records the resources but no user and no key unless asked", async () => {
    const file = join(directory, "plain.yaml");
    const { created } = await session(file, false);
    const text = readFileSync(file, "utf8");
    for (const secret of [keys.bob, created, hashApiKey(keys.bob)]) expect(text).not.toContain(secret);
    const data = loadFixtures(file, spec);
    expect(data.users.map((user) => user.id)).toEqual(["recorded"]);
    expect(data.projects?.length).toBeGreaterThan(0);
  });

  it("with recordKeys, records each caller's key as a user, as SHA-256 only, which the stub then serves", async () => {
    const file = join(directory, "keys.yaml");
    const { created, answers } = await session(file, true);
    const text = readFileSync(file, "utf8");
    for (const secret of [keys.bob, created]) expect(text).not.toContain(secret);
    const data = loadFixtures(file, spec);
    const bob = data.users.find((user) => user.apiKeys?.some((key) => key.sha256 === hashApiKey(keys.bob)));
    expect(bob?.apiKeys?.map((key) => key.sha256)).toContain(hashApiKey(created));
    // Replayed: bob's own key (and the one he made) gets the answers the backend gave him.
    const replay = await startStub({ fixtures: data });
    try {
      for (const [i, query] of queries.entries())
        expect((await search(replay.url, keys.bob, query)).data, query).toEqual(answers[i]);
      expect((await search(replay.url, created, "type:project")).data).toEqual(
        answers[queries.indexOf("type:project")],
      );
    } finally {
      await replay.close();
    }
  });
});

describe("compute-stub's forwarding flags", () => {
  const errors: string[] = [];
  const io = { stdout: () => {}, stderr: (text: string) => void errors.push(text) };
  it("forwards to COMPUTE_STUB_FORWARD and writes --record at the end, with the keys of --record-keys", async () => {
    const backend = await listenLocal(
      createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            results: [
              {
                resourceName: "billingAccounts/ba-x",
                resourceType: "billingAccount",
                score: 1,
                billingAccount: { id: "ba-x" },
              },
            ],
          }),
        );
      }),
    );
    const file = join(directory, "command.yaml");
    process.env.COMPUTE_STUB_FORWARD = backend.url;
    try {
      const result = await runCli(["--record", file, "--record-keys", "--port", "0", "--log-level", "silent"], io);
      expect(result.exitCode).toBe(0);
      expect((await search(result.stub?.url ?? "", keys.bob, "type:billingAccount")).response.status).toBe(200);
      await result.stub?.close();
      const data = loadFixtures(file, spec);
      expect(data.billingAccounts?.map((account) => account.id)).toEqual(["ba-x"]);
      expect(data.users[1]).toMatchObject({ billingAccountIds: ["ba-x"], apiKeys: [{ sha256: hashApiKey(keys.bob) }] });
      expect(readFileSync(file, "utf8")).not.toContain(keys.bob);
    } finally {
      delete process.env.COMPUTE_STUB_FORWARD;
      await backend.close();
    }
  });

  it.each([
    [["--record", join(directory, "x.yaml")], /--record records what --forward forwards/],
    [["--forward", "http://127.0.0.1:1", "--record-keys"], /--record-keys: give --record/],
    [["--forward", "ftp://127.0.0.1:1"], /forward/],
    [["--forward", "http://127.0.0.1:1", "--record", join(directory, "x.json")], /\.yaml/],
  ])("refuses %j with exit 2", async (args, message) => {
    errors.length = 0;
    const result = await runCli([...args, "--port", "0", "--log-level", "silent"], io);
    await result.stub?.close();
    expect(result.exitCode).toBe(2);
    expect(errors.join("")).toMatch(message);
  });
});
