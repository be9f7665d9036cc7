/**
 * `@compute-api/runtime/tracing`: the `OTEL_*` variables read as the specification says (and what cannot be
 * honoured refused in one line), spans exported to a real OTLP/HTTP receiver in both encodings, the trace fields of
 * log lines, and the error body's reason and field names on a span, never a value.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { captureLogs } from "@compute-api/test-support";
import { type OtlpReceiver, startOtlpReceiver } from "@compute-api/test-support/otlp";
import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ATTR_ERROR_FIELDS,
  ATTR_ERROR_REASON,
  setErrorDetails,
  startTracing,
  type TracingConfig,
  TracingConfigError,
  tracingConfig,
  tracingConfigured,
} from "../src/tracing/index.js";

describe("tracingConfigured", () => {
  const cases: [string, { given: NodeJS.ProcessEnv; want: boolean }][] = [
    ["nothing set", { given: {}, want: false }],
    ["an endpoint", { given: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, want: true }],
    ["the traces endpoint", { given: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }, want: true }],
    ["the exporter otlp", { given: { OTEL_TRACES_EXPORTER: "otlp" }, want: true }],
    ["the console", { given: { OTEL_TRACES_EXPORTER: "console" }, want: true }],
    [
      "none, even with an endpoint",
      { given: { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }, want: false },
    ],
    ["the SDK disabled", { given: { OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" }, want: false }],
    ["a blank variable is unset", { given: { OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, want: false }],
    ["only a service name", { given: { OTEL_SERVICE_NAME: "api" }, want: false }],
  ];
  it.each(cases)("%s", (_name, { given, want }) => {
    expect(tracingConfigured(given)).toBe(want);
  });
});

describe("tracingConfig", () => {
  const cases: [string, { given: NodeJS.ProcessEnv; want: Partial<TracingConfig> }][] = [
    [
      "the endpoint gets /v1/traces, protobuf and parent-based always-on by default",
      {
        given: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" },
        want: {
          exporters: ["otlp"],
          url: "http://collector:4318/v1/traces",
          protocol: "http/protobuf",
          sampler: "parentbased_always_on",
          ratio: 1,
        },
      },
    ],
    [
      "an endpoint with a path keeps it",
      {
        given: { OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/prefix" },
        want: { url: "https://otel.example/prefix/v1/traces" },
      },
    ],
    [
      "the traces endpoint is used as given",
      {
        given: {
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:9999/custom",
        },
        want: { url: "http://b:9999/custom" },
      },
    ],
    [
      "headers, percent-decoded, the traces' own winning",
      {
        given: {
          OTEL_TRACES_EXPORTER: "otlp",
          OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b,x=1",
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x=2",
        },
        want: { headers: { "api-key": "a b", x: "2" }, url: "http://localhost:4318/v1/traces" },
      },
    ],
    [
      "the ratio sampler, JSON, the service and resource",
      {
        given: {
          OTEL_TRACES_EXPORTER: "otlp,console",
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
          OTEL_TRACES_SAMPLER_ARG: "0.25",
          OTEL_SERVICE_NAME: "edge",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod,team=a%2Cb",
        },
        want: {
          exporters: ["otlp", "console"],
          protocol: "http/json",
          sampler: "parentbased_traceidratio",
          ratio: 0.25,
          serviceName: "edge",
          resourceAttributes: { "deployment.environment.name": "prod", team: "a,b" },
        },
      },
    ],
  ];
  it.each(cases)("%s", (_name, { given, want }) => {
    expect(tracingConfig(given)).toMatchObject(want);
  });

  const refused: [string, NodeJS.ProcessEnv, RegExp][] = [
    [
      "gRPC",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      /^OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http\/protobuf/,
    ],
    [
      "gRPC for traces",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" },
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc/,
    ],
    [
      "an unknown exporter",
      { OTEL_TRACES_EXPORTER: "zipkin" },
      /^OTEL_TRACES_EXPORTER: 'zipkin' is not one of otlp, console, none$/,
    ],
    [
      "an unknown sampler",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "jaeger_remote" },
      /^OTEL_TRACES_SAMPLER: 'jaeger_remote'/,
    ],
    [
      "a ratio above 1",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER_ARG: "2" },
      /^OTEL_TRACES_SAMPLER_ARG: '2' is not a number from 0 to 1$/,
    ],
    [
      "an endpoint that is no URL",
      { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
      /^OTEL_EXPORTER_OTLP_ENDPOINT: an OTLP\/HTTP endpoint is an http/,
    ],
    [
      "a header without =",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_HEADERS: "secret" },
      /^OTEL_EXPORTER_OTLP_HEADERS: each entry must be key=value/,
    ],
  ];
  it.each(refused)("refuses %s in one line", (_name, env, message) => {
    let thrown: unknown;
    try {
      tracingConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TracingConfigError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain("\n");
  });
});

/** Runs the traced program with `env` and the API key `secret`; its stdout lines, parsed. */
async function runTracedProgram(env: NodeJS.ProcessEnv): Promise<Record<string, unknown>[]> {
  const child = spawn(process.execPath, ["--conditions=@compute-api/source", "--import", "tsx", program], {
    env: { PATH: process.env.PATH, SECRET: secret, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, "exit")) as [number];
  expect(code).toBe(0);
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const program = fileURLToPath(new URL("support/traced-program.ts", import.meta.url));
const secret = "Bearer sk-never-exported-0123456789";

describe("startTracing", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it("is a no-op when nothing is configured: spans do not record and log lines carry no trace", async () => {
    const logs = captureLogs();
    const tracing = await startTracing({ serviceName: "test", logger: logs.logger, env: {} });
    expect(tracing.enabled).toBe(false);
    trace.getTracer("test").startActiveSpan("work", (span) => {
      expect(span.isRecording()).toBe(false);
      logs.logger.info("inside");
      span.end();
    });
    expect(logs.lines).toEqual([expect.not.objectContaining({ trace_id: expect.anything() })]);
    await tracing.shutdown();
  });

  it("exports nothing and says nothing of tracing without the variables", async () => {
    receiver.clear();
    const lines = await runTracedProgram({});
    expect(lines.find((line) => "ids" in line)).toMatchObject({ enabled: false });
    expect(lines.some((line) => String(line.msg).startsWith("tracing:"))).toBe(false);
    expect(lines.find((line) => line.msg === "inside")).not.toHaveProperty("trace_id");
    expect(receiver.exports).toEqual([]);
  });

  it.each(["http/protobuf", "http/json"] as const)(
    "exports over %s with the service's resource, and log lines inside a span carry its ids",
    async (protocol) => {
      receiver.clear();
      const lines = await runTracedProgram({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=abc",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
      });
      expect(lines.find((line) => String(line.msg).startsWith("tracing:"))).toMatchObject({
        msg: `tracing: spans exported over OTLP ${protocol} to ${receiver.tracesUrl} (sampler parentbased_always_on)`,
      });
      const { ids } = lines.find((line) => "ids" in line) as { ids: { traceId: string; spanId: string } };
      const [span] = await receiver.waitForSpans((s) => s.name === "work");
      expect(span).toMatchObject({
        traceId: ids.traceId,
        spanId: ids.spanId,
        parentSpanId: "",
        kind: "SERVER",
        protocol,
        attributes: { answer: 42, [ATTR_ERROR_REASON]: "INVALID_ARGUMENT", [ATTR_ERROR_FIELDS]: ["query"] },
        resource: { "service.name": "test-service", "service.version": "9.9.9", "deployment.environment.name": "test" },
      });
      expect(receiver.exports[0]?.headers["x-collector-token"]).toBe("abc");
      expect(lines.find((line) => line.msg === "inside")).toMatchObject({
        trace_id: ids.traceId,
        span_id: ids.spanId,
        trace_flags: "01",
      });
      expect(receiver.bytes().includes("sk-never-exported")).toBe(false);
    },
  );

  it("lets OTEL_SERVICE_NAME name the service, and samples nothing at parentbased_traceidratio 0", async () => {
    receiver.clear();
    await runTracedProgram({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesUrl, OTEL_SERVICE_NAME: "from-env" });
    const [span] = await receiver.waitForSpans((s) => s.name === "work");
    expect(span?.resource["service.name"]).toBe("from-env");
    receiver.clear();
    const lines = await runTracedProgram({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesUrl,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
    });
    // Not sampled, but the trace is still known to the log lines, as instrumentation-pino does.
    expect(lines.find((line) => line.msg === "inside")).toMatchObject({ trace_flags: "00" });
    expect(receiver.spans).toEqual([]);
  });
});

describe("setErrorDetails", () => {
  it("records the reason and the distinct field names, not the descriptions", () => {
    const attributes: Record<string, unknown> = {};
    const span = {
      setAttribute: (key: string, value: unknown) => {
        attributes[key] = value;
      },
    };
    setErrorDetails(span as never, {
      code: 400,
      message: "m",
      details: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID_QUERY", domain: "compute-api" },
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [
            { field: "limit", description: "must be at most 100, not 5000" },
            { field: "limit", description: "again" },
            { field: "body.name", description: "x" },
          ],
        },
      ],
    });
    expect(attributes).toEqual({ [ATTR_ERROR_REASON]: "INVALID_QUERY", [ATTR_ERROR_FIELDS]: ["limit", "body.name"] });
  });
});
