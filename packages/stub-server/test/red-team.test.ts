/**
 * What a red-team pass found the gateway forwarding or failing on, held against the stub as well, since both must
 * answer alike: query parameters hidden past node:querystring's default of 1,000 pairs, a large invalid array,
 * and a body sent to an operation that takes none. Each is answered 400 with the error body.
 */
import { request } from "node:http";
import { maxFieldViolations } from "@compute-api/contract";
import { type ErrorBodyLike, expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStub, type TestStub, violations } from "./support/stub.js";

let stub: TestStub;
beforeAll(async () => {
  stub = await startTestStub();
});
afterAll(() => stub.close());

const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** A GET with a body framed as given (fetch refuses a GET body); resolves with the status and the parsed answer. */
const getWithBody = (path: string, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; body: ErrorBodyLike }>((resolve, reject) => {
    const req = request(
      `${stub.url}${path}`,
      { method: "GET", headers: { authorization: `Bearer ${stub.keys.alice}`, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as ErrorBodyLike }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });

describe("a query past 1,000 pairs (empty ones count for node:querystring) is checked whole", () => {
  it.each([
    [
      "a bad query and an undeclared parameter after 1,000 `&`",
      `query=ok${"&".repeat(1000)}&query=%01%02&evil=1`,
      "query",
    ],
    ["an undeclared parameter after 1,000 `&`", `query=ok${"&".repeat(1000)}&evil=1`, "evil"],
  ])("%s: 400 naming it", async (_name, search, field) => {
    const body = await expectErrorBody(await stub.call(`/v1/resources/search?${search}`), 400);
    expect(violations(body).map((v) => v.field)).toEqual([field]);
  });
});

describe("130,000 invalid volume ids (maxItems is 64)", () => {
  const body = JSON.stringify({ volumeIds: Array.from({ length: 130_000 }, () => "!") });

  it(`is 400 with at most ${maxFieldViolations} violations`, async () => {
    const answer = await expectErrorBody(await stub.call(machine, { method: "PATCH", body }), 400);
    expect(violations(answer).length).toBeGreaterThan(0);
    expect(violations(answer).length).toBeLessThanOrEqual(maxFieldViolations);
  });

  it("leaves the event loop free: each of ten in flight costs one maxItems check, not an error per item (it took seconds), and /healthz answers meanwhile", async () => {
    let done = false;
    const answers = Promise.all(
      Array.from({ length: 10 }, () => stub.call(machine, { method: "PATCH", body })),
    ).finally(() => (done = true));
    do expect((await stub.call("/healthz", { as: null })).status).toBe(200);
    while (!done);
    const answered = await answers;
    expect(answered.map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 400));
    // The work each took: the size bound failed and the 130,000 items were never looked at one by one.
    for (const res of answered)
      expect(violations(await expectErrorBody(res, 400)).map((v) => [v.field, v.reason])).toEqual([
        ["volumeIds", "maxItems"],
      ]);
  });
});

describe("a body on an operation that takes none", () => {
  const smuggled = "GET /v1/resources/search?query=smuggled HTTP/1.1\r\nHost: stub\r\n\r\n";
  it.each([
    ["a second request as the body, framed by Content-Length", { "content-length": String(smuggled.length) }, smuggled],
    ["a chunked body", { "transfer-encoding": "chunked" }, smuggled],
    ["a JSON body", { "content-type": "application/json", "content-length": "13" }, '{"query":"a"}'],
  ])("%s: 400", async (_name, headers: Record<string, string>, body) => {
    const answer = await getWithBody("/v1/resources/search?query=a", headers, body);
    expect(answer.status).toBe(400);
    expect(violations(answer.body)).toEqual([
      { field: "", description: "this operation takes no request body", reason: "body" },
    ]);
  });
});
