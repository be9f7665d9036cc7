/**
 * The stub and the gateway answer alike. The stub validates with express-openapi-validator, the gateway with the
 * compiled contract of @compute-api/contract; the same requests — schema-valid, one constraint broken, the same
 * with its method, path, query, Authorization, Content-Type or body changed, and the hostile ones — go two ways:
 *
 * - end to end: to a stub directly, and through a gateway in front of its twin (same data, same keys);
 * - the validators alone: to the stub's validator with a handler that accepts everything, and through a gateway
 *   in front of an upstream that accepts everything. A gateway that let through what the stub refuses would be
 *   covered end to end by the twin stub behind it; here it is not;
 * - and the stub's MSW handlers (@compute-api/stub-server/msw, a twin of the same data and keys), reached through
 *   MSW's interception of node:http (`setupServer`), end to end beside the stub.
 *
 * Each pair of answers must have the same status and the same ErrorInfo reasons, and a 400 the same set of
 * violated fields.
 */
import { createServer, type Server } from "node:http";
import { syncBuiltinESMExports } from "node:module";
import {
  type Answer,
  type RawRequest,
  type RequestInput,
  send,
  sendBytes,
  toRawRequest,
} from "@compute-api/conformance/testing";
import { parseQueryString } from "@compute-api/contract";
import { createGateway } from "@compute-api/gateway";
import { createLogger } from "@compute-api/runtime";
import { createContractValidator, errorHandler } from "@compute-api/server/validator";
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { listenLocal } from "@compute-api/test-support";
import express from "express";
import fc from "fast-check";
import { type SetupServer, setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reasonsOf, violationsOf } from "./support/checks.js";
import { cases, malformed, withLength } from "./support/hostile.js";
import { keyCases, patchCases, requests, searchCases } from "./support/oracle.js";
import { checkProperty, count, flushCounts } from "./support/property.js";
import { startTarget, type Target, type UserId, userKeys } from "./support/targets.js";

const file = "test/adversarial/differential.test.ts";
const defaultRuns = 60;
/** A property's runs go to three targets (the stub, the gateway, the MSW handlers): up to 120 runs on a loaded machine. */
const propertyTimeoutMs = 90_000;

let stub: Target;
let gateway: Target;
/** The stub's validator alone, and a gateway alone: each in front of a handler that accepts everything. */
const alone = { validator: "", gateway: "" };
const servers: Server[] = [];
let closeAloneGateway: (() => Promise<void>) | undefined;
/** The MSW handlers, at an origin no request leaves the process for: MSW answers before any connection. */
const mswOrigin = "http://msw.compute.test";
let msw: SetupServer;

/** Listens a request listener on an ephemeral 127.0.0.1 port. */
async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  return (await listenLocal(server)).url;
}

beforeAll(async () => {
  [stub, gateway] = await Promise.all([startTarget("stub"), startTarget("gateway")]);
  const validator = createContractValidator({ responses: "off" });
  await validator.warmUp();
  const app = express();
  app.set("query parser", parseQueryString);
  app.use(validator.middleware);
  app.use((_req, res) => {
    res.json({ passed: true });
  });
  app.use(errorHandler());
  alone.validator = await serve(app);
  const accepting = await serve((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"passed":true}'));
  });
  const aloneGateway = await createGateway({
    upstream: accepting,
    responseValidation: "off",
    logger: createLogger({ level: "silent" }),
  });
  closeAloneGateway = () => aloneGateway.close();
  alone.gateway = await serve(aloneGateway.app);
  msw = setupServer(...createStubHandlers({ baseUrl: mswOrigin, apiKeys: userKeys }).handlers);
});
afterAll(async () => {
  flushCounts();
  for (const server of servers) server.closeAllConnections();
  await Promise.all([
    stub?.close(),
    gateway?.close(),
    closeAloneGateway?.(),
    ...servers.map((s) => new Promise((resolve) => s.close(resolve))),
  ]);
});

/** What must be alike in two answers: the status, the ErrorInfo reasons, and for a 400 the violated fields. */
const essence = (answer: Answer) => ({
  status: answer.status,
  reasons: answer.status >= 400 ? reasonsOf(answer.json).sort() : [],
  fields: answer.status === 400 ? [...new Set(violationsOf(answer.json).map((v) => v.field))].sort() : [],
});

/**
 * Sends a request to the MSW handlers through MSW's interception of node:http, on only while it is sent, so that
 * what goes to the stub and the gateway is never intercepted. MSW patches node:http's CommonJS exports; `send`
 * imports `request` by name as an ES module, which sees the patch once Node syncs the two.
 */
async function sendToMsw(request: RawRequest): Promise<Answer> {
  msw.listen({ onUnhandledRequest: "error" });
  syncBuiltinESMExports();
  try {
    return await send(mswOrigin, request);
  } finally {
    msw.close();
    syncBuiltinESMExports();
  }
}

/**
 * What never reaches MSW's handlers as sent: a dot segment (`..`, `%2E%2E`) or a fragment (`#part`), which a URL
 * resolves or drops before any handler sees the request (as fetch does before it sends one); a head over Node's 16 KiB, which MSW's interception of
 * node:http does not read (the stub answers 431); a body node:http sends without framing (no Content-Length on a
 * GET, HEAD, DELETE or OPTIONS), which the stub reads as a second request and MSW as the body. And where the handlers
 * differ on purpose: a br or zstd body, which they answer 415 (a browser's DecompressionStream reads neither; the
 * stub's body-parser reads br, and zstd where Node's zlib has it, Node 24).
 */
function mswCannotTake(request: RawRequest): boolean {
  const path = request.path.split(/[?#]/)[0] ?? "";
  const head = request.path.length + JSON.stringify(request.headers ?? {}).length;
  const names = Object.keys(request.headers ?? {}).map((name) => name.toLowerCase());
  const unframed =
    request.body !== undefined &&
    ["GET", "HEAD", "DELETE", "OPTIONS"].includes(request.method) &&
    !names.includes("content-length") &&
    !names.includes("transfer-encoding");
  const coding = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === "content-encoding")?.[1];
  const unread = /\b(br|zstd)\b/i.test(String(coding ?? ""));
  return (
    /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path) || request.path.includes("#") || head > 16 * 1024 || unframed || unread
  );
}

/** Sends the request both ways — end to end, and to the validators alone — and expects alike answers each way. */
async function alike(request: RawRequest, label: string): Promise<void> {
  const what = `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers)} ${String(request.body ?? "").slice(0, 200)}`;
  for (const [way, a, b] of [
    ["end to end", stub.url, gateway.url],
    ["validators alone", alone.validator, alone.gateway],
  ] as const) {
    const direct = await send(a, request);
    const through = await send(b, request);
    count(`differential ${way} ${label} ${direct.status}`);
    expect(
      essence(through),
      `${way}: ${what}\nstub: ${direct.text.slice(0, 400)}\ngateway: ${through.text.slice(0, 400)}`,
    ).toEqual(essence(direct));
    if (way === "end to end" && !mswCannotTake(request)) {
      const mocked = await sendToMsw(request);
      count(`differential msw ${label} ${mocked.status}`);
      expect(
        essence(mocked),
        `msw: ${what}\nstub: ${direct.text.slice(0, 400)}\nmsw: ${mocked.text.slice(0, 400)}`,
      ).toEqual(essence(direct));
    }
  }
}

/** A request of an operation as a user, as the suites write it. */
const raw = (operationId: string, input: RequestInput, user: UserId = "alice") =>
  toRawRequest(requests.shapeOf(operationId), input, userKeys[user]);

const validRequests = fc.oneof(
  patchCases.map(({ user, input }) => raw("updateClusterMachine", input, user)),
  keyCases.map(({ user, input }) => raw("createApiKey", input, user)),
  searchCases.map(({ user, input }) => raw("searchResources", input, user)),
);

const brokenRequests = fc.oneof(
  ...[...requests.shapes.keys()].flatMap((operationId) =>
    requests.mutants(operationId).map((site) => site.arbitrary.map((m) => raw(operationId, m.input))),
  ),
);

type Change = [string, (r: RawRequest) => RawRequest];
const header =
  (name: string, value: string | undefined): Change[1] =>
  (r) => {
    const headers = Object.fromEntries(Object.entries(r.headers ?? {}).filter(([k]) => k !== name));
    return { ...r, headers: value === undefined ? headers : { ...headers, [name]: value } };
  };
const withBody =
  (text: string): Change[1] =>
  (r) => ({ ...header("content-type", "application/json")(r), body: text });
const withPath =
  (f: (path: string) => string): Change[1] =>
  (r) => {
    const at = r.path.indexOf("?");
    return { ...r, path: at < 0 ? f(r.path) : f(r.path.slice(0, at)) + r.path.slice(at) };
  };
const withQuery =
  (extra: string): Change[1] =>
  (r) => ({ ...r, path: `${r.path}${r.path.includes("?") ? "&" : "?"}${extra}` });

/** One change to an otherwise whole request: the envelope the stub's validator and the compiled contract must judge alike. */
const changes: Change[] = [
  ["none", (r) => r],
  ["no Authorization", header("authorization", undefined)],
  ["Basic Authorization", header("authorization", "Basic YWxpY2U6cHc=")],
  ["a bearer token with a space", header("authorization", "Bearer two words")],
  [
    "a lower-case bearer scheme",
    (r) => header("authorization", String(r.headers?.authorization ?? "").replace("Bearer", "bearer"))(r),
  ],
  ["a bare Bearer", header("authorization", "Bearer")],
  ["text/plain", header("content-type", "text/plain")],
  ["a +json media type", header("content-type", "application/merge-patch+json")],
  ["JSON in latin1", header("content-type", "application/json; charset=latin1")],
  ["an upper-case media type", header("content-type", "APPLICATION/JSON")],
  ["no Content-Type", header("content-type", undefined)],
  ["malformed JSON", withBody("{")],
  ["a JSON number", withBody("1")],
  ["an empty body", withBody("")],
  ["JSON null", withBody("null")],
  ["a JSON array", withBody("[]")],
  ...["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"].map(
    (m): Change => [`method ${m}`, (r) => ({ ...r, method: m })],
  ),
  ["an upper-case path", withPath((p) => p.toUpperCase())],
  ["a trailing slash", withPath((p) => `${p}/`)],
  ["a percent-encoded letter of the path", withPath((p) => p.replace("/v1/", "/v%31/"))],
  ["a doubled slash", withPath((p) => p.replace("/v1/", "/v1//"))],
  ["an extra segment", withPath((p) => `${p}/extra`)],
  ["a fragment", withPath((p) => `${p}#part`)],
  ["a matrix parameter", withPath((p) => `${p};v=1`)],
  ["an empty query", (r) => (r.path.includes("?") ? r : { ...r, path: `${r.path}?` })],
  ["gzip Content-Encoding of a body that is not gzip", header("content-encoding", "gzip")],
  ["an unknown Content-Encoding", header("content-encoding", "zstd")],
  ["a bracket name", withQuery("%5Bx%5D=1")],
  ["a name in bracket notation", withQuery("a%5Bb%5D=1")],
  ["the query in bracket notation", withQuery("query%5Bx%5D=1")],
  ["the query again", withQuery("query=again")],
  ["an unknown name", withQuery("page=2")],
  ["1,000 empty pairs before an unknown name", withQuery(`${"&".repeat(1000)}page=2`)],
  ["a body where the operation takes none", (r) => (r.body === undefined ? withLength(r, "x") : r)],
];

describe("stub and gateway answer alike", () => {
  it("schema-valid requests (property)", { timeout: propertyTimeoutMs }, async () => {
    await checkProperty(file, validRequests, (request) => alike(request, "valid"), defaultRuns);
  });

  it("requests with one constraint broken (property)", { timeout: propertyTimeoutMs }, async () => {
    await checkProperty(file, brokenRequests, (request) => alike(request, "broken"), defaultRuns);
  });

  it("valid or broken requests with one change to their method, path, query, Authorization, Content-Type or body (property)", {
    timeout: propertyTimeoutMs,
  }, async () => {
    const changed = fc.tuple(fc.oneof(validRequests, brokenRequests), fc.constantFrom(...changes));
    await checkProperty(file, changed, ([request, [name, change]]) => alike(change(request), name), defaultRuns * 2);
  });

  it("covers every change", async () => {
    for (const [name, change] of changes)
      await alike(
        change(raw("createApiKey", { path: {}, query: [], body: { apikeyId: `diff-${name.length}` } })),
        name,
      );
  });

  it.each(cases)("hostile: %s", async (_name, make) => {
    await alike(make(userKeys.alice), "hostile");
  });

  it.each(malformed)("not HTTP/1.1: %s", async (_name, bytes) => {
    const [direct, through] = await Promise.all(
      [stub.url, gateway.url].map((url) => sendBytes(url, bytes(new URL(url).host, userKeys.alice))),
    );
    expect(essence(through!)).toEqual(essence(direct!));
  });
});
