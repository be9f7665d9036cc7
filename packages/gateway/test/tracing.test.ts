/**
 * The gateway's traces, end to end: the real compute-gateway command (from source, in its own process group) in
 * front of the real stub, exporting over OTLP/HTTP to a real receiver that decodes what arrives. A request's
 * trace joins the caller's (its traceparent and tracestate), the backend gets the gateway's own traceparent, a
 * 400 tells its reason and fields but no value, no key or body reaches the receiver, a retried attempt is a span
 * of its own, sampling at 0 exports nothing, each worker exports its spans, and SIGTERM flushes them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type IncomingMessage, type RequestListener, request } from "node:http";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createLogger } from "@compute-api/runtime";
import { startTracing, type Tracing } from "@compute-api/runtime/tracing";
import { createApp } from "@compute-api/stub-server";
import { freePort, type Listening, listenLocal } from "@compute-api/test-support";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@compute-api/test-support/otlp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const keys = { alice: "cak_tracing-alice-secret-0001" };
const bearer = { authorization: `Bearer ${keys.alice}` };

/** A running compute-gateway command: its origin, its output so far, and a way to signal its process group. */
interface Command {
  url: string;
  output(): string;
  /** The JSON lines it wrote. */
  lines(): Record<string, unknown>[];
  /** The pids of the processes that said they listen (the workers, with --workers). */
  pids(): number[];
  signal(name: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) {
    try {
      process.kill(-(child.pid ?? 0), "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** The environment without any OTEL_* variable of the test's own, and with the given ones. */
function environment(otel: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("OTEL_")) env[name] = value;
  return { ...env, ...otel };
}

/** Starts compute-gateway in front of `upstream` with the OTEL_* variables; resolves once every process listens. */
async function gateway(upstream: string, otel: Record<string, string>, args: string[] = []): Promise<Command> {
  const port = await freePort();
  const workers = Number(args[args.indexOf("--workers") + 1] ?? 1) || 1;
  const child = spawn(
    process.execPath,
    [
      "--conditions",
      "@compute-api/source",
      "--import",
      "tsx",
      bin,
      "--upstream",
      upstream,
      "--port",
      String(port),
      "--log-level",
      "info",
      // A keep-alive connection of the test's fetch would hold the drain for the default 10 s.
      "--shutdown-grace",
      "200",
      ...args,
    ],
    { env: environment(otel), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  started.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lines = () =>
    output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const pids = () =>
    lines()
      .filter((line) => line.msg === "compute-gateway listening")
      .map((line) => Number(line.pid));
  const deadline = Date.now() + 90_000;
  while (pids().length < workers) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start:\n${output}`);
    await sleep(50);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    lines,
    pids,
    signal: (name) => process.kill(-(child.pid ?? 0), name),
    exited,
  };
}

/**
 * A request with the test's key, on a connection of its own (so that --workers hands each to the next worker);
 * resolves with its status.
 */
function send(url: string, headers: Record<string, string> = {}, method = "GET", body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const json = body === undefined ? {} : { "content-type": "application/json" };
    const req = request(url, { method, headers: { ...bearer, ...json, ...headers }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The trace context headers a backend received, per request. */
type Seen = { traceparent?: string | undefined; tracestate?: string | undefined; url: string };

/** The stub, with the trace context of each request it received noted before the stub serves it. */
async function observedStub(): Promise<Listening & { seen: Seen[] }> {
  const { app } = await createApp({ apiKeys: keys });
  const seen: Seen[] = [];
  const listener: RequestListener = (req, res) => {
    seen.push(contextOf(req));
    app(req, res);
  };
  return { ...(await listenLocal(listener)), seen };
}

const contextOf = (req: IncomingMessage): Seen => ({
  traceparent: req.headers.traceparent as string | undefined,
  tracestate: req.headers.tracestate as string | undefined,
  url: req.url ?? "",
});

/** A random lowercase hex id of `bytes` bytes. */
const hexId = (bytes: number) =>
  Array.from({ length: bytes }, () =>
    Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, "0"),
  ).join("");

/** The gateway's spans of one trace. */
const ofTrace = (receiver: OtlpReceiver, traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);

const byKind = (spans: ReceivedSpan[], kind: ReceivedSpan["kind"]) => spans.filter((span) => span.kind === kind);

/** Fast exports, so that a test waits for its spans a moment rather than the SDK's 5 s. */
const quickly = { OTEL_BSP_SCHEDULE_DELAY: "50" };

describe("a traced gateway in front of the stub", () => {
  let receiver: OtlpReceiver;
  let stub: Listening & { seen: Seen[] };
  let command: Command;
  /** The test process's own tracing: the stub serving in it exports its spans (the server kit's) too. */
  let stubTracing: Tracing;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    stubTracing = await startTracing({
      serviceName: "compute-stub",
      logger: createLogger({ level: "silent" }),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    stub = await observedStub();
    command = await gateway(stub.url, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...quickly });
  }, 270_000);
  afterAll(async () => {
    command?.signal("SIGTERM");
    await command?.exited;
    await stub?.close();
    await stubTracing?.shutdown();
    await receiver?.close();
  });
  afterEach(() => {
    stub.seen.length = 0;
  });

  it("continues the caller's trace: its SERVER span, a CLIENT span under it, and the backend gets the CLIENT span's traceparent", async () => {
    const traceId = hexId(16);
    const callerSpan = hexId(8);
    const status = await send(`${command.url}/v1/resources/search?query=train`, {
      traceparent: `00-${traceId}-${callerSpan}-01`,
      tracestate: "caller=t61rcWkgMzE",
      "user-agent": "tracing-test/1.0",
      "x-request-id": "traced-search",
    });
    expect(status).toBe(200);
    await stubTracing.forceFlush();
    // The gateway's SERVER and CLIENT spans, and the stub's SERVER span.
    const spans = await receiver.waitForSpans((s) => s.traceId === traceId, 30_000, 3);
    const [server, stubServer] = byKind(spans, "SERVER").sort((a, b) =>
      Number(a.startTimeUnixNano - b.startTimeUnixNano),
    );
    const [client] = byKind(spans, "CLIENT");
    expect(stubServer).toMatchObject({
      name: "GET /v1/resources/search",
      parentSpanId: client?.spanId,
      resource: expect.objectContaining({ "service.name": "compute-stub" }),
    });
    expect(server).toMatchObject({
      name: "GET /v1/resources/search",
      parentSpanId: callerSpan,
      traceState: "caller=t61rcWkgMzE",
      resource: expect.objectContaining({ "service.name": "compute-gateway" }),
      scope: { name: "@compute-api/gateway", version: expect.any(String) },
      status: { code: "UNSET" },
    });
    expect(server?.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/v1/resources/search",
      "url.path": "/v1/resources/search",
      "url.scheme": "http",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(command.url).port),
      "client.address": "127.0.0.1",
      "user_agent.original": "tracing-test/1.0",
      "compute_api.operation_id": "searchResources",
      "compute_api.response_check": "passed",
    });
    expect(server?.attributes).not.toHaveProperty("error.type");
    expect(client).toMatchObject({ name: "GET /v1/resources/search", parentSpanId: server?.spanId });
    expect(client?.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(stub.url).port),
      "url.full": `${stub.url}/v1/resources/search?query=REDACTED`,
    });
    expect(client?.attributes).not.toHaveProperty("http.request.resend_count");
    // The CLIENT span lies within the SERVER span.
    expect(client!.startTimeUnixNano).toBeGreaterThanOrEqual(server!.startTimeUnixNano);
    expect(client!.endTimeUnixNano).toBeLessThanOrEqual(server!.endTimeUnixNano);
    // The backend continues the trace under the CLIENT span, with the caller's tracestate.
    expect(stub.seen).toEqual([
      {
        url: "/v1/resources/search?query=train",
        traceparent: `00-${traceId}-${client?.spanId}-01`,
        tracestate: "caller=t61rcWkgMzE",
      },
    ]);
    // The request's log line carries its trace and the SERVER span (standard output is written in batches, so the
    // line is out within 100 ms of the answer).
    let line: Record<string, unknown> | undefined;
    for (const deadline = Date.now() + 15_000; line === undefined && Date.now() < deadline; await sleep(20))
      line = command.lines().find((l) => l.reqId === "traced-search");
    expect(line).toMatchObject({ trace_id: traceId, span_id: server?.spanId, trace_flags: "01" });
  });

  it("starts a trace for a request without traceparent, and sends it upstream", async () => {
    const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
    expect(await send(command.url + machine, {}, "PATCH", '{"powerState":"POWERING_ON"}')).toBe(200);
    const [seen] = stub.seen;
    const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(\d\d)$/.exec(seen?.traceparent ?? "") ?? [];
    expect(flags).toBe("01");
    const spans = await receiver.waitForSpans((s) => s.traceId === traceId, 30_000, 2);
    const [server] = byKind(spans, "SERVER");
    expect(server).toMatchObject({ name: "PATCH /v1/projects/{projectId}/cluster-machines/{id}", parentSpanId: "" });
    expect(server?.attributes).toMatchObject({
      "http.request.method": "PATCH",
      "http.route": "/v1/projects/{projectId}/cluster-machines/{id}",
      "url.path": machine,
      "compute_api.operation_id": "updateClusterMachine",
      "compute_api.response_check": "passed",
    });
    expect(byKind(spans, "CLIENT")[0]).toMatchObject({ spanId, parentSpanId: server?.spanId });
  });

  it("a 400 carries its reason and the fields at fault, never the values; the backend never sees it", async () => {
    const traceId = hexId(16);
    const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
    const body = '{"powerState":"VALUE-MARKER","priceHr":{"value":"OTHER-MARKER"}}';
    const status = await send(command.url + machine, { traceparent: `00-${traceId}-${hexId(8)}-01` }, "PATCH", body);
    expect(status).toBe(400);
    const [server] = await receiver.waitForSpans((s) => s.traceId === traceId);
    expect(server).toMatchObject({ kind: "SERVER", name: "PATCH /v1/projects/{projectId}/cluster-machines/{id}" });
    expect(server?.status.code).toBe("UNSET");
    expect(server?.attributes).toMatchObject({
      "http.response.status_code": 400,
      "compute_api.operation_id": "updateClusterMachine",
      "compute_api.error.reason": expect.any(String),
    });
    expect([...((server?.attributes["compute_api.error.fields"] as string[]) ?? [])].sort()).toEqual([
      "powerState",
      "priceHr.value",
    ]);
    expect(server?.attributes).not.toHaveProperty("error.type");
    expect(server?.attributes).not.toHaveProperty("compute_api.response_check");
    expect(stub.seen).toEqual([]);
    await sleep(200);
    expect(ofTrace(receiver, traceId)).toHaveLength(1);
    expect(receiver.bytes().toString("latin1")).not.toMatch(/VALUE-MARKER|OTHER-MARKER/);
  });

  it("an unknown path is named by its method alone, with its reason", async () => {
    const traceId = hexId(16);
    expect(await send(`${command.url}/v1/no-such-thing`, { traceparent: `00-${traceId}-${hexId(8)}-01` })).toBe(404);
    const [server] = await receiver.waitForSpans((s) => s.traceId === traceId);
    expect(server).toMatchObject({ name: "GET" });
    expect(server?.attributes).toMatchObject({
      "http.response.status_code": 404,
      "compute_api.error.reason": expect.any(String),
    });
    expect(server?.attributes).not.toHaveProperty("http.route");
  });

  it("no API key, created key or request body reaches the receiver", async () => {
    const traceId = hexId(16);
    const res = await fetch(`${command.url}/v1/api-keys`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json", traceparent: `00-${traceId}-${hexId(8)}-01` },
      body: JSON.stringify({ apikeyId: "body-marker-key" }),
    });
    expect(res.status).toBe(200);
    const created = JSON.stringify(await res.json());
    const secret = /"(cak_[^"]+)"/.exec(created)?.[1];
    expect(secret).toBeDefined();
    const spans = await receiver.waitForSpans((s) => s.traceId === traceId, 30_000, 2);
    expect(byKind(spans, "SERVER")[0]?.attributes).toMatchObject({ "compute_api.operation_id": "createApiKey" });
    const exported = receiver.bytes().toString("latin1");
    for (const never of [keys.alice, secret!, "body-marker-key", "Bearer"]) expect(exported).not.toContain(never);
  });
});

describe("the OTEL_* variables", () => {
  it("a value the gateway cannot honour stops it at start-up: a usage error naming the variable, exit status 2", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions", "@compute-api/source", "--import", "tsx", bin, "--upstream", "http://127.0.0.1:4010"],
      {
        env: environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
      },
    );
    started.push(child);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^error: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/),
      "(run compute-gateway --help for the options)",
    ]);
  }, 120_000);
});

describe("sampling", () => {
  it("parentbased_traceidratio 0 exports nothing but what a sampled caller asks for; the backend gets the trace either way", async () => {
    const receiver = await startOtlpReceiver();
    const stub = await observedStub();
    try {
      const command = await gateway(stub.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0",
        ...quickly,
      });
      const search = `${command.url}/v1/resources/search?query=train`;
      for (let i = 0; i < 5; i++) expect(await send(search)).toBe(200);
      const [unsampled, sampled] = [hexId(16), hexId(16)];
      expect(await send(search, { traceparent: `00-${unsampled}-${hexId(8)}-00` })).toBe(200);
      expect(await send(search, { traceparent: `00-${sampled}-${hexId(8)}-01` })).toBe(200);
      command.signal("SIGTERM");
      expect(await command.exited).toBe(0);
      // Only the caller that sampled its trace gets spans: the parent's decision wins over the ratio.
      expect(receiver.spans.map((s) => [s.traceId, s.kind]).sort()).toEqual([
        [sampled, "CLIENT"],
        [sampled, "SERVER"],
      ]);
      expect(stub.seen).toHaveLength(7);
      const contexts = stub.seen.map((s) =>
        /^00-([0-9a-f]{32})-[0-9a-f]{16}-(\d\d)$/.exec(s.traceparent ?? "")?.slice(1),
      );
      for (const context of contexts.slice(0, 5)) expect(context?.[1]).toBe("00");
      expect(contexts[5]).toEqual([unsampled, "00"]);
      expect(contexts[6]).toEqual([sampled, "01"]);
    } finally {
      await stub.close();
      await receiver.close();
    }
  }, 270_000);
});

describe("a retried upstream attempt", () => {
  it("is a second CLIENT span, marked as a resend, each attempt with its own traceparent", async () => {
    // A backend that closes a reused connection under the next request, as one whose keep-alive ended does.
    const served = new WeakMap<Socket, number>();
    const seen: Seen[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        seen.push(contextOf(req));
        const count = served.get(req.socket) ?? 0;
        served.set(req.socket, count + 1);
        if (count > 0) return void req.socket.destroy();
        const body = JSON.stringify({ results: [] });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
    });
    server.keepAliveTimeout = 60_000;
    const backend = await listenLocal(server);
    const receiver = await startOtlpReceiver();
    try {
      const command = await gateway(backend.url, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...quickly });
      expect(await send(`${command.url}/v1/resources/search?query=a`)).toBe(200);
      await sleep(50);
      const traceId = hexId(16);
      expect(
        await send(`${command.url}/v1/resources/search?query=a`, { traceparent: `00-${traceId}-${hexId(8)}-01` }),
      ).toBe(200);
      const spans = await receiver.waitForSpans((s) => s.traceId === traceId, 30_000, 3);
      const [serverSpan] = byKind(spans, "SERVER");
      const [first, resend] = byKind(spans, "CLIENT").sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
      expect(first).toMatchObject({ parentSpanId: serverSpan?.spanId, status: { code: "ERROR" } });
      expect(first?.attributes).toMatchObject({ "error.type": "connection_closed" });
      expect(first?.attributes).not.toHaveProperty("http.request.resend_count");
      expect(resend).toMatchObject({ parentSpanId: serverSpan?.spanId, status: { code: "UNSET" } });
      expect(resend?.attributes).toMatchObject({
        "http.request.resend_count": 1,
        "compute_api.retry.reason": "connection_closed",
        "http.response.status_code": 200,
      });
      expect(seen.slice(-2).map((s) => s.traceparent)).toEqual([
        `00-${traceId}-${first?.spanId}-01`,
        `00-${traceId}-${resend?.spanId}-01`,
      ]);
      command.signal("SIGTERM");
      await command.exited;
    } finally {
      await backend.close();
      await receiver.close();
    }
  }, 270_000);
});

describe("--workers and SIGTERM", () => {
  it("each worker exports its own spans, held until SIGTERM flushes them before the exit", async () => {
    const receiver = await startOtlpReceiver();
    const stub = await observedStub();
    try {
      // Spans are held for a minute: only the flush at SIGTERM sends them before that.
      const command = await gateway(
        stub.url,
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "60000" },
        ["--workers", "2"],
      );
      const traceIds: string[] = [];
      for (let i = 0; i < 6; i++) {
        const traceId = hexId(16);
        traceIds.push(traceId);
        expect(
          await send(`${command.url}/v1/resources/search?query=train`, { traceparent: `00-${traceId}-${hexId(8)}-01` }),
        ).toBe(200);
      }
      await sleep(300);
      expect(receiver.spans).toEqual([]);
      command.signal("SIGTERM");
      expect(await command.exited).toBe(0);
      const servers = byKind(receiver.spans, "SERVER");
      expect(servers.map((s) => s.traceId).sort()).toEqual([...traceIds].sort());
      expect(byKind(receiver.spans, "CLIENT")).toHaveLength(6);
      const pids = new Set(servers.map((s) => s.resource["process.pid"]));
      expect([...pids].sort()).toEqual([...command.pids()].sort());
      expect(pids.size).toBe(2);
    } finally {
      await stub.close();
      await receiver.close();
    }
  }, 270_000);
});
