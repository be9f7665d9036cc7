/**
 * Traces of the server kit, exported to a real OTLP/HTTP receiver: the compute-stub command started with the
 * standard `OTEL_*` variables continues the caller's trace in a SERVER span per request, with the stable HTTP
 * conventions, the operationId and a 400's reason and fields (never a value, never the key), over http/protobuf
 * and http/json; a ratio of 0 exports nothing; SIGTERM flushes before the command exits. In-process, an
 * implementer's own spans in `authenticate` and in a handler nest under the request's span.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startTracing, type Tracing } from "@compute-api/runtime/tracing";
import { captureLogs, killGroup } from "@compute-api/test-support";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@compute-api/test-support/otlp";
import { trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { handlers, keys, serve } from "./support/server.js";

const stubBin = fileURLToPath(new URL("../../stub-server/src/bin.ts", import.meta.url));
const apiKey = "cak_tracing-zqkey-0123456789";
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const callerSpanId = "00f067aa0ba902b7";
const traceparent = (flags = "01") => `00-${traceId}-${callerSpanId}-${flags}`;

/** A running compute-stub command. */
interface Command {
  url: string;
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Its stdout so far (the listening lines, then the JSON log lines). */
  out(): string;
  /** SIGTERM; resolves with the exit code once it has exited. */
  stop(): Promise<number | null>;
}

const started: Command[] = [];
afterEach(() => {
  for (const command of started.splice(0))
    if (command.child.exitCode === null && command.child.signalCode === null) killGroup(command.child.pid ?? 0);
});

/** Starts compute-stub with `env` added to a bare environment; resolves once it listens. */
async function startStub(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Command> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@compute-api/source",
      "--import",
      "tsx",
      stubBin,
      "--port",
      "0",
      "--api-key",
      apiKey,
      "--shutdown-grace",
      "0",
      ...args,
    ],
    { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/\S+) \(/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on("data", check);
    child.once("exit", (code) => reject(new Error(`compute-stub exited with ${code}: ${err}`)));
  });
  const command: Command = {
    url,
    child,
    out: () => out,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      // "close": exited, and its output read to the end.
      await once(child, "close");
      return child.exitCode;
    },
  };
  started.push(command);
  return command;
}

/** Runs compute-stub to its exit; its code and stderr. */
async function runStub(env: NodeJS.ProcessEnv): Promise<{ code: number | null; err: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=@compute-api/source", "--import", "tsx", stubBin, "--port", "0"],
    {
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  await once(child, "close");
  return { code: child.exitCode, err };
}

const search = (url: string, query: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/resources/search?${query}`, {
    headers: { authorization: `Bearer ${apiKey}`, "user-agent": "tracing-test/1.0", ...headers },
  });

/** The variables that point the command at the receiver; spans are sent 50 ms after they end. */
const otel = (receiver: OtlpReceiver, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_BSP_SCHEDULE_DELAY: "50",
  ...more,
});

const serverSpan = (name: string) => (span: ReceivedSpan) => span.kind === "SERVER" && span.name === name;

describe("compute-stub with OTEL_* variables", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it.each(["http/protobuf", "http/json"] as const)(
    "continues the caller's traceparent in a SERVER span with the HTTP conventions, over %s",
    async (protocol) => {
      receiver.clear();
      const stub = await startStub(otel(receiver, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol }));
      expect(stub.out()).toContain(`tracing: spans exported over OTLP ${protocol} to ${receiver.tracesUrl}`);
      const res = await search(stub.url, "query=train", { traceparent: traceparent(), tracestate: "vendor=zq1" });
      expect(res.status).toBe(200);
      const [span] = await receiver.waitForSpans(serverSpan("GET /v1/resources/search"));
      const port = Number(new URL(stub.url).port);
      expect(span).toMatchObject({
        traceId,
        parentSpanId: callerSpanId,
        traceState: "vendor=zq1",
        protocol,
        scope: { name: "@compute-api/server" },
        resource: { "service.name": "compute-stub" },
        status: { code: "UNSET" },
        attributes: {
          "http.request.method": "GET",
          "url.path": "/v1/resources/search",
          "url.scheme": "http",
          "http.route": "/v1/resources/search",
          "http.response.status_code": 200,
          "server.address": "127.0.0.1",
          "server.port": port,
          "client.address": "127.0.0.1",
          "user_agent.original": "tracing-test/1.0",
          "compute_api.operation_id": "searchResources",
        },
      });
      expect(span?.resource["service.version"]).toMatch(/^\d+\.\d+\.\d+/);
      expect(await stub.stop()).toBe(0);
      // The request's log line (out once the command has exited) carries the span, as instrumentation-pino writes it.
      const line = stub
        .out()
        .split("\n")
        .filter((text) => text.startsWith("{"))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => (entry.req as { path?: string } | undefined)?.path === "/v1/resources/search");
      expect(line).toMatchObject({ trace_id: traceId, span_id: span?.spanId, trace_flags: "01" });
    },
  );

  it("records a 400's reason and fields, never a value, the query or the key", async () => {
    receiver.clear();
    const stub = await startStub(otel(receiver));
    const bad = await search(stub.url, "query=type:zqvalue1");
    expect(bad.status).toBe(400);
    const patch = await fetch(`${stub.url}/v1/projects/proj-zq/cluster-machines/cm-zq`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ powerState: "zqvalue2" }),
    });
    expect(patch.status).toBe(400);
    const unauthenticated = await fetch(`${stub.url}/v1/resources/search?query=a`, {
      headers: { authorization: "Bearer cak_wrong-zqkey-987654321" },
    });
    expect(unauthenticated.status).toBe(401);
    const [searchSpan] = await receiver.waitForSpans(
      (span) => span.name === "GET /v1/resources/search" && span.attributes["http.response.status_code"] === 400,
    );
    expect(searchSpan?.attributes).toMatchObject({
      "compute_api.error.reason": expect.any(String),
      "compute_api.error.fields": ["query"],
      "compute_api.operation_id": "searchResources",
    });
    const [patchSpan] = await receiver.waitForSpans(serverSpan("PATCH /v1/projects/{projectId}/cluster-machines/{id}"));
    expect(patchSpan?.attributes).toMatchObject({
      "http.response.status_code": 400,
      "url.path": "/v1/projects/proj-zq/cluster-machines/cm-zq",
      "compute_api.error.fields": ["powerState"],
      "compute_api.operation_id": "updateClusterMachine",
    });
    const [refused] = await receiver.waitForSpans((span) => span.attributes["http.response.status_code"] === 401);
    expect(refused?.attributes["compute_api.error.reason"]).toEqual(expect.any(String));
    expect(refused?.attributes["error.type"]).toBeUndefined();
    expect(await stub.stop()).toBe(0);
    const bytes = receiver.bytes();
    for (const secret of ["zqvalue1", "zqvalue2", "zqkey", "Bearer", "query=type"])
      expect(bytes.includes(secret), `"${secret}" in what the receiver got`).toBe(false);
  });

  it("exports nothing at parentbased_traceidratio 0, whether or not the caller's trace was sampled", async () => {
    receiver.clear();
    const stub = await startStub(
      otel(receiver, { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" }),
    );
    for (const headers of [{}, { traceparent: traceparent("00") }])
      expect((await search(stub.url, "query=train", headers)).status).toBe(200);
    expect(await stub.stop()).toBe(0);
    expect(receiver.exports).toEqual([]);
  });

  it("flushes the spans on SIGTERM, before exiting, though the batch would wait a minute", async () => {
    receiver.clear();
    const stub = await startStub(otel(receiver, { OTEL_BSP_SCHEDULE_DELAY: "60000" }));
    expect((await search(stub.url, "query=train")).status).toBe(200);
    await sleep(200);
    expect(receiver.spans).toEqual([]);
    expect(await stub.stop()).toBe(0);
    expect(receiver.spans.filter(serverSpan("GET /v1/resources/search"))).toHaveLength(1);
  });

  it("refuses OTEL_EXPORTER_OTLP_PROTOCOL=grpc as a usage error, exit status 2", async () => {
    const { code, err } = await runStub({ ...otel(receiver), OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(code).toBe(2);
    expect(err).toMatch(
      /^error: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http\/protobuf .*\n\(run compute-stub --help for the options\)\n$/,
    );
  });

  it("without the variables traces nothing: the caller's traceparent is not even read", async () => {
    const stub = await startStub({}, "--log-level", "info");
    expect((await search(stub.url, "query=train", { traceparent: traceparent() })).status).toBe(200);
    expect(await stub.stop()).toBe(0);
    expect(stub.out()).not.toContain("tracing:");
    expect(stub.out()).not.toContain("trace_id");
  });
});

describe("an implementer's spans", () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = await startTracing({
      serviceName: "implementer",
      logger: captureLogs().logger,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
  });
  afterAll(async () => {
    await tracing.shutdown();
    await receiver.close();
  });

  it("nest under the request's SERVER span, from authenticate and from the handler, across awaits", async () => {
    const tracer = trace.getTracer("implementer");
    const logs = captureLogs();
    const { call } = await serve({
      logger: logs.logger,
      authenticate: (token) =>
        tracer.startActiveSpan("look up the key", async (span) => {
          await sleep(1);
          span.end();
          return keys[token];
        }),
      handlers: handlers({
        searchResources: async () => {
          await sleep(1);
          await tracer.startActiveSpan("search the index", async (span) => {
            await sleep(1);
            logs.logger.info("searching");
            span.end();
          });
          return { results: [] };
        },
      }),
    });
    expect((await call("/v1/resources/search?query=a", { headers: { traceparent: traceparent() } })).status).toBe(200);
    await tracing.forceFlush();
    const [request] = await receiver.waitForSpans(serverSpan("GET /v1/resources/search"));
    const [lookup] = await receiver.waitForSpans((span) => span.name === "look up the key");
    const [index] = await receiver.waitForSpans((span) => span.name === "search the index");
    expect(request).toMatchObject({ traceId, parentSpanId: callerSpanId });
    expect(lookup).toMatchObject({ traceId, parentSpanId: request?.spanId });
    expect(index).toMatchObject({ traceId, parentSpanId: request?.spanId });
    expect(logs.lines.find((line) => line.msg === "searching")).toMatchObject({
      trace_id: traceId,
      span_id: index?.spanId,
    });
    expect(logs.lines.find((line) => (line.req as { path?: string } | undefined)?.path)).toMatchObject({
      trace_id: traceId,
      span_id: request?.spanId,
    });
  });

  it("names a request no route matched after its method alone, and the meta routes after their path", async () => {
    receiver.clear();
    const { call } = await serve();
    expect((await call("/v1/nowhere/zq-unrouted")).status).toBe(404);
    expect((await call("/healthz")).status).toBe(200);
    await tracing.forceFlush();
    const [unrouted] = await receiver.waitForSpans((span) => span.attributes["url.path"] === "/v1/nowhere/zq-unrouted");
    expect(unrouted?.name).toBe("GET");
    expect(unrouted?.attributes["http.route"]).toBeUndefined();
    expect(unrouted?.attributes["http.response.status_code"]).toBe(404);
    const [health] = await receiver.waitForSpans(serverSpan("GET /healthz"));
    expect(health?.attributes["http.route"]).toBe("/healthz");
  });
});
