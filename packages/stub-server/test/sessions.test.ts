/**
 * Test sessions inside one stub (`X-Stub-Session`): each its own state, faults and journal, made on first use from
 * the data a reset goes back to, copy on write — two sessions driven in parallel through the real client never see
 * each other, and making a session over 100,000 resources reads none of them.
 */
import { createComputeClient } from "@compute-api/client";
import { loadSpec } from "@compute-api/contract";
import { type Fixtures, generateFixtures, projectCollections } from "@compute-api/fixtures";
import { expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxSessions, sessionHeader } from "../src/sessions.js";
import { type StubHandle, type StubSession, startStub } from "../src/testing.js";
import { violations } from "./support/stub.js";

const machinePath = "/v1/projects/{projectId}/cluster-machines/{id}" as const;
const alphaMachine = { path: { projectId: "proj-alpha", id: "cm-alpha-01" } };

/** The real client, sending a session's header on every request (its own retries off: each answer is seen). */
const clientOf = (session: StubSession) =>
  createComputeClient({
    baseUrl: session.url,
    apiKey: session.apiKey,
    headers: session.headers,
    retry: { maxAttempts: 1 },
  });

/** cm-alpha-01 as a snapshot has it. */
const alphaOf = (data: Fixtures) => data.clusters?.flatMap((c) => c.machines ?? []).find((m) => m.id === "cm-alpha-01");

describe("two sessions of one stub, driven in parallel", () => {
  let stub: StubHandle;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());

  /** One test file's work in its session: its PATCH, its faults, then what it sees of its own state and journal. */
  async function file(session: StubSession, change: { powerState: "ON" | "OFF"; state: "FAILED" | "ACTIVE" }) {
    const client = clientOf(session);
    await session.reset();
    const patched = await client.PATCH(machinePath, { params: alphaMachine, body: change });
    if (change.state === "FAILED") await session.faults({ faults: "503=100%" });
    const searched = await client.GET("/v1/resources/search", { params: { query: { query: "type:cluster" } } });
    const snapshot = await session.snapshot();
    const journal = await session.requests();
    await session.faults({ faults: null });
    return {
      patched: patched.response.status,
      searched: searched.response.status,
      seen: { powerState: alphaOf(snapshot)?.powerState, state: alphaOf(snapshot)?.state },
      journal: journal.map((entry) => [entry.method, entry.path, entry.status]),
    };
  }

  it("never see each other's PATCH, faults or journal, round after round; the stub's own state is untouched", async () => {
    const before = await stub.snapshot();
    for (let round = 0; round < 20; round++) {
      const [a, b] = [stub.session(), stub.session()];
      try {
        const [fromA, fromB] = await Promise.all([
          file(a, { powerState: "ON", state: "FAILED" }),
          file(b, { powerState: "OFF", state: "ACTIVE" }),
        ]);
        expect(fromA).toEqual({
          patched: 200,
          searched: 503,
          seen: { powerState: "ON", state: "FAILED" },
          journal: [
            ["PATCH", "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01", 200],
            ["GET", "/v1/resources/search", 503],
          ],
        });
        expect(fromB).toEqual({
          patched: 200,
          searched: 200,
          seen: { powerState: "OFF", state: "ACTIVE" },
          journal: [
            ["PATCH", "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01", 200],
            ["GET", "/v1/resources/search", 200],
          ],
        });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }
    expect(await stub.snapshot()).toEqual(before);
    expect(await stub.requests()).toEqual([]);
    expect((await stub.faults()).faults).toBeNull();
  });

  it("keeps a key created in a session to that session; the stub's key works in every one", async () => {
    const [a, b] = [stub.session(), stub.session()];
    const { data } = await clientOf(a).POST("/v1/api-keys", { body: { apikeyId: "session-key" } });
    const created = data?.key ?? "";
    const searchWith = (key: string, headers: Record<string, string>) =>
      fetch(`${stub.url}/v1/resources/search?query=alpha`, { headers: { ...headers, authorization: `Bearer ${key}` } });
    expect((await searchWith(created, a.headers)).status).toBe(200);
    expect((await searchWith(created, b.headers)).status).toBe(401);
    expect((await searchWith(created, {})).status).toBe(401);
    expect((await searchWith(stub.apiKey, b.headers)).status).toBe(200);
    // The same id is free in the other session and in the stub's own state.
    expect((await clientOf(b).POST("/v1/api-keys", { body: { apikeyId: "session-key" } })).response.status).toBe(200);
    await Promise.all([a.close(), b.close()]);
  });

  it("keeps stubbed answers and the journal's finds to each session; the stub's own answers stay its own", async () => {
    const [a, b] = [stub.session(), stub.session()];
    const query = { query: "type:cluster" };
    /** Who answered a search of the query: a stubbed answer's x-answer, or the store (`store`, with results). */
    const answeredBy = async (headers: Record<string, string>) => {
      const response = await fetch(`${stub.url}/v1/resources/search?query=type%3Acluster`, {
        headers: { ...headers, authorization: `Bearer ${stub.apiKey}` },
      });
      const { results } = (await response.json()) as { results: unknown[] };
      return response.headers.get("x-answer") ?? (results.length > 0 ? "store" : "none");
    };
    const answerOf = (who: string) => ({
      request: { operationId: "searchResources", query },
      answer: { status: 200, headers: { "x-answer": who }, body: { results: [] } },
    });
    const inA = await a.answer(answerOf("session a"));
    const inStub = await stub.answer(answerOf("the stub"));
    try {
      expect([(await a.answers()).map((x) => x.id), await b.answers()]).toEqual([[inA], []]);
      expect((await stub.answers()).map((x) => x.id)).toEqual([inStub]);
      expect([await answeredBy(a.headers), await answeredBy(b.headers), await answeredBy({})]).toEqual([
        "session a",
        "store",
        "the stub",
      ]);
      // Each session finds its own requests only, and only session a's carries its answer's id.
      const [foundA, foundB] = await Promise.all([
        a.expectRequests({ operationId: "searchResources", query }, 1),
        b.expectRequests({ operationId: "searchResources", query }, 1),
      ]);
      expect([foundA[0]?.answerId, foundB[0]?.answerId]).toEqual([inA, undefined]);
      await expect(b.removeAnswer(inA)).rejects.toThrow(/answered 404/);
      await b.clearAnswers();
      expect(await answeredBy(a.headers)).toBe("session a");
    } finally {
      await stub.clearAnswers();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("restores and loads in a session alone; a reset goes back to the stub's data; an ended session starts afresh", async () => {
    const a = stub.session("restore-and-load");
    const started = await a.snapshot();
    await a.load({ generate: 20, seed: 4 });
    expect((await a.snapshot()).users).not.toEqual(started.users);
    expect(await stub.snapshot()).toEqual(started);
    await clientOf(a).PATCH(machinePath, { params: alphaMachine, body: { powerState: "ON" } });
    await a.close();
    const again = stub.session("restore-and-load");
    expect(await again.snapshot()).toEqual(started);
    await again.restore({ ...started, clusters: [] });
    expect((await again.snapshot()).clusters).toEqual([]);
    expect(await again.reset()).toEqual({ resourceCount: expect.any(Number), userIds: started.users.map((u) => u.id) });
    expect(await again.snapshot()).toEqual(started);
    await again.close();
  });

  it("lists the sessions, and ends the one the header names or, without it, every one", async () => {
    const [a, b] = [stub.session("list-a"), stub.session("list-b")];
    await clientOf(a).PATCH(machinePath, { params: alphaMachine, body: { powerState: "ON" } });
    await b.requests();
    const listed = async () =>
      ((await (await fetch(`${stub.url}/__stub/sessions`)).json()) as { sessions: { id: string }[] }).sessions;
    expect(await listed()).toEqual([
      { id: "list-a", createTime: expect.any(String), changedResources: 1, requests: 1 },
      { id: "list-b", createTime: expect.any(String), changedResources: 0, requests: 0 },
    ]);
    await a.close();
    expect((await listed()).map((s) => s.id)).toEqual(["list-b"]);
    await fetch(`${stub.url}/__stub/sessions`, { method: "DELETE", headers: { "content-type": "application/json" } });
    expect(await listed()).toEqual([]);
  });

  it.each([
    ["a space", "two words"],
    ["a list of ids", "a, b"],
    ["an id over 128 characters", "x".repeat(129)],
  ])("answers a header with %s 400 naming it, over the API and the admin API, and makes no session", async (_n, id) => {
    for (const path of ["/v1/resources/search?query=alpha", "/__stub/faults"]) {
      const res = await fetch(`${stub.url}${path}`, {
        headers: { [sessionHeader]: id, authorization: `Bearer ${stub.apiKey}` },
      });
      const body = await expectErrorBody(res, 400);
      expect(violations(body).map((v) => v.field)).toEqual([`header.${sessionHeader}`]);
    }
    expect(await (await fetch(`${stub.url}/__stub/sessions`)).json()).toEqual({ sessions: [] });
  });

  it(`refuses a session past the ${maxSessions}th with a 400, until one ends`, async () => {
    const faultsIn = (id: string) => fetch(`${stub.url}/__stub/faults`, { headers: { [sessionHeader]: id } });
    for (let batch = 0; batch < maxSessions; batch += 50) {
      const made = await Promise.all(Array.from({ length: 50 }, (_, i) => faultsIn(`many-${batch + i}`)));
      expect(made.map((res) => res.status)).toEqual(Array(50).fill(200));
    }
    const refused = await faultsIn("one-too-many");
    expect(violations(await expectErrorBody(refused, 400))[0]?.description).toMatch(/past the stub's 1000/);
    await stub.session("many-0").close();
    expect((await faultsIn("one-too-many")).status).toBe(200);
    await fetch(`${stub.url}/__stub/sessions`, { method: "DELETE", headers: { "content-type": "application/json" } });
  });
});

describe("a session over 100,000 generated resources", () => {
  /** The resources any read of whose `id` was seen: a copy of one reads it, a new view over them reads none. */
  const touched = new Set<object>();
  let stub: StubHandle;
  let machine: { projectId: string; id: string };

  beforeAll(async () => {
    const fixtures = generateFixtures({ count: 100_000, seed: 3, spec: loadSpec() });
    const collections = ["billingAccounts", "projects", ...Object.keys(projectCollections)] as const;
    for (const name of collections)
      for (const resource of (fixtures[name as keyof Fixtures] ?? []) as { id: string }[]) {
        const id = resource.id;
        Object.defineProperty(resource, "id", {
          enumerable: true,
          configurable: true,
          get: () => {
            touched.add(resource);
            return id;
          },
        });
      }
    const user = fixtures.users[0];
    const cluster = fixtures.clusters?.find((c) => user?.projectIds.includes(c.projectId) && c.machines?.length);
    machine = { projectId: cluster?.projectId ?? "", id: cluster?.machines?.[0]?.id ?? "" };
    // Adopted: neither checked again nor copied, as the command does with --generate.
    stub = await startStub({ fixtures, adoptFixtures: true });
  }, 300_000);
  afterAll(() => stub?.close());

  it("is made, used and reset touching no resource; its first PATCH copies one cluster, which the stub never sees", async () => {
    touched.clear();
    const session = stub.session();
    expect((await session.faults()).faults).toBeNull();
    await session.reset();
    expect(await session.requests()).toEqual([]);
    expect(touched.size).toBe(0);
    const listed = await (await fetch(`${stub.url}/__stub/sessions`)).json();
    expect(listed.sessions).toEqual([expect.objectContaining({ id: session.id, changedResources: 0 })]);

    const patched = await clientOf(session).PATCH(machinePath, {
      params: { path: machine },
      body: { state: "FAILED" },
    });
    expect(patched.response.status).toBe(200);
    // The cluster of the machine, copied once (its id read by the copy and by the answer's check).
    expect(touched.size).toBe(1);
    const after = await (await fetch(`${stub.url}/__stub/sessions`)).json();
    expect(after.sessions[0]).toMatchObject({ changedResources: 1 });
    const own = await stub.snapshot();
    const ownMachine = own.clusters?.flatMap((c) => c.machines ?? []).find((m) => m.id === machine.id);
    expect(ownMachine?.state).not.toBe("FAILED");
    await session.close();
  });
});

describe("without the admin API", () => {
  it("there are no sessions: the header is not read, and every request is answered on the one state", async () => {
    const { startServer } = await import("../src/server.js");
    const running = await startServer({ port: 0, admin: false, apiKeys: { alice: "cak_test_no_admin_alice" } });
    try {
      const headers = { authorization: "Bearer cak_test_no_admin_alice", "content-type": "application/json" };
      const res = await fetch(`${running.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
        method: "PATCH",
        headers: { ...headers, [sessionHeader]: "ignored" },
        body: JSON.stringify({ powerState: "ON" }),
      });
      expect(res.status).toBe(200);
      const search = await fetch(`${running.url}/v1/resources/search?query=cl-train-01%20type:cluster`, { headers });
      const { results } = (await search.json()) as {
        results: { cluster: Fixtures["clusters"] extends (infer C)[] | undefined ? C : never }[];
      };
      const seen = results[0]?.cluster.machines?.find((m) => m.id === "cm-alpha-01");
      expect(seen?.powerState).toBe("ON");
      expect((await fetch(`${running.url}/__stub/sessions`)).status).toBe(404);
    } finally {
      await running.close();
    }
  });
});
