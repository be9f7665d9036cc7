/**
 * Hostile input, written byte for byte (node:http, and node:net for what is not HTTP at all), straight to the
 * stub and through the gateway: malformed and truncated JSON, wrong and missing content types, bodies over the
 * limit, deeply nested JSON, huge headers and URLs, bytes that are not UTF-8, path segments with `..`, `%2F`,
 * `%00`, very long ids, duplicate query parameters, malformed HTTP. Each gets a 4xx answer with the ErrorBody
 * (never a 5xx, never HTML, never a hang: every exchange has a deadline), nothing changes, and the target
 * answers a normal request correctly afterwards.
 */
import { Agent, request } from "node:http";
import { type Answer, jsonRequest, send, sendBytes, toRawRequest } from "@compute-api/conformance/testing";
import { errorBodyProblems } from "@compute-api/test-support";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clusterState, expectHealthy, expectNoProblems, validator, violationsOf } from "./support/checks.js";
import { as, cases, machinePath, malformed } from "./support/hostile.js";
import { requests } from "./support/oracle.js";
import { checkProperty, count, flushCounts } from "./support/property.js";
import { startTarget, type Target, type TargetName } from "./support/targets.js";

const file = "test/adversarial/hostile-input.test.ts";
const defaultRuns = 25;

describe.each<TargetName>(["stub", "gateway"])("hostile input, %s", (targetName) => {
  let target: Target;
  let initial: unknown;
  beforeAll(async () => {
    target = await startTarget(targetName);
    initial = await clusterState(target.stubUrl, target.keys.alice, "cl-train-01");
  });
  afterEach(async () => {
    // Nothing hostile changed anything, and a normal request is answered correctly.
    expect(await clusterState(target.stubUrl, target.keys.alice, "cl-train-01")).toEqual(initial);
    await expectHealthy(target.url, target.keys.alice);
  });
  afterAll(async () => {
    flushCounts();
    await target?.close();
  });

  const expectError = (answer: Answer, statuses: number[], what: string) => {
    count(`${targetName} hostile ${answer.status}`);
    const problems = errorBodyProblems(answer, statuses);
    // A field names a parameter or a part of the body, never the URL path that was sent.
    for (const v of violationsOf(answer.json))
      if (/^v1[./]/.test(v.field)) problems.push(`field ${JSON.stringify(v.field)} is the URL path`);
    expectNoProblems(problems, answer, what);
  };

  it.each(cases)("%s: 4xx with the error body", async (name, make, statuses) => {
    expectError(await send(target.url, make(target.keys.alice)), statuses, name);
  });

  it.each(malformed)("%s: Node's parser refuses it with the error body", async (name, bytes, status) => {
    expectError(await sendBytes(target.url, bytes(new URL(target.url).host, target.keys.alice)), [status], name);
  });

  it("HEAD, on a keep-alive connection: a spec path is 405 (Allow: GET) and oversized headers 431, each without a body, read cleanly by node:http", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const head = (headers: Record<string, string>) =>
      new Promise<{ status?: number; allow?: string; bytes: number; error?: string }>((resolve) => {
        const out: { status?: number; allow?: string; bytes: number; error?: string } = { bytes: 0 };
        const { hostname, port } = new URL(target.url);
        const req = request(
          { host: hostname, port, method: "HEAD", path: "/v1/resources/search?query=a", headers, agent },
          (res) => {
            if (res.statusCode !== undefined) out.status = res.statusCode;
            if (res.headers.allow !== undefined) out.allow = res.headers.allow;
            res.on("data", (c: Buffer) => (out.bytes += c.length));
            res.on("end", () => setTimeout(() => resolve(out), 50));
          },
        );
        req.on("error", (error: NodeJS.ErrnoException) => resolve({ ...out, error: error.code ?? error.message }));
        req.end();
      });
    try {
      const auth = { authorization: `Bearer ${target.keys.alice}` };
      expect(await head(auth)).toEqual({ status: 405, allow: "GET", bytes: 0 });
      expect(await head({ ...auth, "x-padding": "a".repeat(20_000) })).toEqual({ status: 431, bytes: 0 });
      expect(await head(auth)).toEqual({ status: 405, allow: "GET", bytes: 0 });
    } finally {
      agent.destroy();
    }
  });

  it("a query that is not percent-encoded UTF-8 is taken as written, never a 5xx (known leniency of the query parser)", async () => {
    const answer = await send(target.url, jsonRequest("GET", "/v1/resources/search?query=%FF%FE", target.keys.alice));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ results: [] });
  });

  it("valid bodies cut short anywhere: 400 naming the body as a whole (property)", async () => {
    const bodies = fc.oneof(
      ...["updateClusterMachine", "createApiKey"].map((op) =>
        requests.valid(op).map((input) => ({ op, text: JSON.stringify(input.body) })),
      ),
    );
    await checkProperty(
      file,
      fc.tuple(bodies, fc.nat()).map(([b, n]) => ({ ...b, text: b.text.slice(0, 1 + (n % (b.text.length - 1))) })),
      async ({ op, text }) => {
        const answer = await send(
          target.url,
          as(
            target.keys.alice,
            op === "createApiKey" ? "POST" : "PATCH",
            op === "createApiKey" ? "/v1/api-keys" : machinePath,
            text,
          ),
        );
        expectError(answer, [400], `truncated ${JSON.stringify(text)}`);
        expect(violationsOf(answer.json)).toEqual([expect.objectContaining({ field: "", reason: "malformed-json" })]);
      },
      defaultRuns,
    );
  });

  it("random bytes as a JSON body: 4xx with the error body (property)", async () => {
    await checkProperty(
      file,
      fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.boolean()),
      async ([bytes, post]) => {
        const answer = await send(
          target.url,
          as(target.keys.alice, post ? "POST" : "PATCH", post ? "/v1/api-keys" : machinePath, Buffer.from(bytes)),
        );
        expectError(answer, [400], `bytes ${Buffer.from(bytes).toString("hex")}`);
      },
      defaultRuns,
    );
  });

  it("bytes that are not UTF-8 inside a valid body: 400 (property)", async () => {
    const bodies = fc.oneof(
      ...["updateClusterMachine", "createApiKey"].map((op) =>
        requests.valid(op).map((input) => ({ op, text: JSON.stringify(input.body) })),
      ),
    );
    const invalidUtf8 = fc
      .uint8Array({ minLength: 1, maxLength: 3 })
      .map((b) => Buffer.from(b.map((x) => 0x80 | (x & 0x7f))));
    await checkProperty(
      file,
      fc.tuple(bodies, fc.nat(), invalidUtf8),
      async ([{ op, text }, n, bad]) => {
        const bytes = Buffer.from(text, "utf8");
        const at = n % (bytes.length + 1);
        const body = Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]);
        const answer = await send(
          target.url,
          as(
            target.keys.alice,
            op === "createApiKey" ? "POST" : "PATCH",
            op === "createApiKey" ? "/v1/api-keys" : machinePath,
            body,
          ),
        );
        expectError(answer, [400], `body ${body.toString("hex")}`);
      },
      defaultRuns,
    );
  });

  it("hostile path segments — `..`, `%2F`, `%00`, escapes that do not decode, very long ids — 400 or 404 (property)", async () => {
    const resourceId = requests.arbitraries.forPointer("#/components/schemas/ResourceId") as fc.Arbitrary<string>;
    const piece = fc.oneof(
      fc.constantFrom("..", ".", "%2F", "%2f", "%00", "%FF", "%E0%A4", "%2E%2E", "%5C", "%", "%20", ";", "~"),
      resourceId,
    );
    const segment = fc.oneof(
      fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join("")),
      fc.nat({ max: 3000 }).map((n) => "a".repeat(129 + n)),
    );
    const decodesToValid = (s: string) => {
      try {
        return validator.validate("#/components/schemas/ResourceId", decodeURIComponent(s)).length === 0;
      } catch {
        return false;
      }
    };
    await checkProperty(
      file,
      fc.tuple(
        segment.filter((s) => !decodesToValid(s)),
        fc.boolean(),
      ),
      async ([s, asProject]) => {
        const path = asProject
          ? `/v1/projects/${s}/cluster-machines/cm-alpha-01`
          : `/v1/projects/proj-alpha/cluster-machines/${s}`;
        const answer = await send(target.url, as(target.keys.alice, "PATCH", path, '{"powerState":"REBOOTING"}'));
        expectError(answer, [400, 404], `PATCH ${path.slice(0, 200)}`);
      },
      defaultRuns,
    );
  });

  it("a query parameter given two to five times: 400 naming it (property)", async () => {
    const search = requests.valid("searchResources");
    await checkProperty(
      file,
      fc.array(search, { minLength: 2, maxLength: 5 }),
      async (inputs) => {
        const shape = requests.shapeOf("searchResources");
        const input = { path: {}, query: inputs.flatMap((i) => i.query) };
        const answer = await send(target.url, toRawRequest(shape, input, target.keys.alice));
        expectError(answer, [400], `query ${JSON.stringify(input.query).slice(0, 200)}`);
        expect(violationsOf(answer.json).map((v) => v.field)).toContain("query");
      },
      defaultRuns,
    );
  });
});
