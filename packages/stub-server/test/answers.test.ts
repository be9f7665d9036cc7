/**
 * Stubbed answers: a test's own answer for the requests it matches (operation, path, query, headers, partial body,
 * priority), checked against the spec when it is set, given only to requests that were authenticated and validated,
 * and journaled with its id — through the admin API over HTTP, the helper of `/testing` and the MSW handlers alike.
 */
import { describe, expect, it } from "vitest";
import { onBothSides, type Side } from "./support/both-sides.js";
import { json, stubPerTest, type TestStub, validator, violations } from "./support/stub.js";

const stub = stubPerTest();
const machinePath = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
const search = (query: string) => `/v1/resources/search?query=${encodeURIComponent(query)}`;

/** An admin request as the admin API takes it: JSON on every write. */
async function admin(s: TestStub, method: string, path: string, body?: unknown) {
  const response = await fetch(`${s.url}/__stub${path}`, {
    method,
    headers: method === "GET" ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** The fields an error body names. */
const fieldsOf = (body: unknown) => violations(body as never).map((v) => v.field);

describe("stubbed answers on both sides (the helper over HTTP, the MSW handlers)", () => {
  it("a query gets its own answer; other queries get the store's, and the journal names the answer", async () => {
    await onBothSides(async (side) => {
      const id = await side.answer({
        request: { operationId: "searchResources", query: { query: "train" } },
        answer: { status: 200, headers: { "x-stubbed": "yes" }, body: { results: [] } },
      });
      const stubbed = await side.call(search("train"));
      expect([stubbed.status, stubbed.headers.get("x-stubbed"), await stubbed.json()], side.name).toEqual([
        200,
        "yes",
        { results: [] },
      ]);
      const real = (await (await side.call(search("alpha"))).json()) as { results: unknown[] };
      expect(real.results.length, side.name).toBeGreaterThan(0);
      const journal = await side.requests({ operationId: "searchResources" });
      expect(
        journal.map((e) => [e.query.query, e.status, e.answerId]),
        side.name,
      ).toEqual([
        ["train", 200, id],
        ["alpha", 200, undefined],
      ]);
      expect(await side.requests({ operationId: "searchResources", query: { query: "train" } }), side.name).toEqual([
        journal[0],
      ]);
    });
  });

  it("matched by path (* for any characters), headers and a partial body; the lower priority wins, then the newest", async () => {
    await onBothSides(async (side) => {
      const patch = (body: unknown, headers: Record<string, string> = {}) =>
        side.call(machinePath, { ...json("PATCH", body), headers });
      // The store's answer, a valid machine to start the stubbed ones from.
      const machine = await (await patch({ powerState: "OFF" })).json();
      const named = (name: string) => ({ status: 200, body: { ...machine, name } });
      const request = {
        operationId: "updateClusterMachine",
        path: "/v1/projects/proj-alpha/*",
        body: { powerState: "ON" },
      };
      await side.answer({ request, answer: named("older, priority 5") });
      await side.answer({ request, answer: named("priority 1"), priority: 1 });
      await side.answer({ request, answer: named("newer, priority 5") });
      await side.answer({ request: { ...request, headers: { "X-Tenant": "t1" } }, answer: named("t1"), priority: 0 });
      const nameOf = async (response: Promise<Response>) => ((await (await response).json()) as { name: string }).name;
      expect(await nameOf(patch({ powerState: "ON", state: "ACTIVE" })), side.name).toBe("priority 1");
      expect(await nameOf(patch({ powerState: "ON" }, { "x-tenant": "t1" })), side.name).toBe("t1");
      expect(await nameOf(patch({ powerState: "OFF" })), side.name).toBe(machine.name);
      const [first] = await side.answers();
      await side.removeAnswer(first?.id ?? "");
      const rest = await side.answers();
      expect(rest.map((a) => [a.answer.body, a.priority]).map(([b, p]) => [(b as { name: string }).name, p])).toEqual([
        ["priority 1", 1],
        ["newer, priority 5", 5],
        ["older, priority 5", 5],
      ]);
      await side.removeAnswer(rest[0]?.id ?? "");
      expect(await nameOf(patch({ powerState: "ON" })), side.name).toBe("newer, priority 5");
      await side.clearAnswers();
      expect(await side.answers()).toEqual([]);
      expect(await nameOf(patch({ powerState: "ON" })), side.name).toBe(machine.name);
    });
  });

  it("refuses an answer the spec does not allow, naming what is wrong; invalid: true sends it as set", async () => {
    await onBothSides(async (side) => {
      const refusal = (answer: Parameters<Side["answer"]>[0]) =>
        side.answer(answer).then(
          () => "set",
          (error: Error) => error.message,
        );
      const request = { operationId: "searchResources" };
      expect(await refusal({ request, answer: { status: 418, body: { results: [] } } }), side.name).toContain(
        "answer.status",
      );
      expect(await refusal({ request, answer: { status: 200, body: { results: 3 } } }), side.name).toMatch(
        /answer\.body\.results.*must be array/,
      );
      expect(
        await refusal({ request, answer: { status: 200, headers: { "content-type": "text/html" }, bodyText: "<p>" } }),
        side.name,
      ).toContain("answer.headers.content-type");
      expect(await refusal({ request: { operationId: "nope" }, answer: { status: 200 } }), side.name).toContain(
        "request.operationId",
      );
      expect(
        await refusal({ request: { ...request, query: { q: "x" } }, answer: { status: 200, body: { results: [] } } }),
      ).toContain("request.query.q");
      expect(await side.answers(), side.name).toEqual([]);

      await side.answer({ request, answer: { status: 200, body: { results: 3 } }, invalid: true });
      const broken = await side.call(search("anything"));
      expect([broken.status, await broken.text()], side.name).toEqual([200, '{"results":3}']);
      await side.answer({
        request,
        answer: { status: 502, headers: { "content-type": "text/html" }, bodyText: "<h1>Bad gateway</h1>" },
        invalid: true,
      });
      const html = await side.call(search("anything"));
      expect([html.status, html.headers.get("content-type"), await html.text()], side.name).toEqual([
        502,
        expect.stringMatching(/^text\/html/),
        "<h1>Bad gateway</h1>",
      ]);
    });
  });

  it("a request is authenticated and validated before a stubbed answer applies", async () => {
    await onBothSides(async (side) => {
      const id = await side.answer({
        request: { operationId: "searchResources" },
        answer: { status: 200, body: { results: [] } },
      });
      expect((await side.call(search("x"), { as: null })).status, side.name).toBe(401);
      expect((await side.call("/v1/resources/search?query=", {})).status, side.name).toBe(400);
      expect((await side.call(`${search("x")}&extra=1`)).status, side.name).toBe(400);
      expect((await side.call(search("x"))).status, side.name).toBe(200);
      const journal = await side.requests();
      expect(
        journal.map((e) => [e.status, e.answerId]),
        side.name,
      ).toEqual([
        [401, undefined],
        [400, undefined],
        [400, undefined],
        [200, id],
      ]);
    });
  });
});

describe("POST /__stub/answers over HTTP", () => {
  it("answers 201 with the answer set, and 400 with the error body naming each problem; nothing is set then", async () => {
    const s = await stub();
    const set = await admin(s, "POST", "/answers", {
      request: { method: "get", path: "/v1/resources/search" },
      answer: { status: 200, body: { results: [] } },
    });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({
      id: "answer-1",
      priority: 5,
      invalid: false,
      request: { operationId: "searchResources" },
    });
    const refused = await admin(s, "POST", "/answers", {
      request: { operationId: "createApiKey", body: { apikeyId: "x" }, query: { a: "b" }, extra: 1 },
      answer: { status: 200, headers: { "content-length": "3" }, body: {} },
      priority: -1,
    });
    expect(refused.status).toBe(400);
    expect(validator.validate("#/components/schemas/ErrorBody", refused.body)).toEqual([]);
    expect(fieldsOf(refused.body)).toEqual(["request.extra", "answer.headers.content-length", "priority"]);
    const broken = await admin(s, "POST", "/answers", {
      request: { operationId: "createApiKey" },
      answer: { status: 200, body: { key: 1 } },
    });
    expect(fieldsOf(broken.body)).toEqual(expect.arrayContaining(["answer.body.key", "invalid"]));
    expect((await admin(s, "GET", "/answers")).body.answers.map((a: { id: string }) => a.id)).toEqual(["answer-1"]);
    const missing = await admin(s, "DELETE", "/answers/answer-9");
    expect([missing.status, missing.body.message]).toEqual([404, expect.stringContaining("answer-9")]);
    expect((await admin(s, "DELETE", "/answers/answer-1")).body.id).toBe("answer-1");
    expect((await admin(s, "GET", "/answers")).body).toEqual({ answers: [] });
  });
});
