/**
 * A real OTLP/HTTP trace receiver for tests, in place of an OpenTelemetry Collector (whose binary is not at hand):
 * node:http on an ephemeral 127.0.0.1 port that accepts `POST /v1/traces` in http/protobuf (decoded by protobufjs
 * from the opentelemetry-proto messages below) and in http/json, gzip or not, answers as a collector does, and
 * keeps every span (ids in hex, attributes flattened), and every byte received, for "no key in any exported
 * byte" checks. `waitForSpans` waits for the spans a test expects.
 * @see https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/trace/v1/trace.proto
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { type Listening, listenLocal } from "./listen-local.js";

/** The messages of opentelemetry-proto an export request is made of (trace/v1, common/v1, resource/v1). */
const otlpProto = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
}
message Status {
  reserved 1;
  string message = 2;
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; }
  StatusCode code = 3;
}
`;

const root = protobuf.parse(otlpProto, { keepCase: false }).root;
const ExportRequest = root.lookupType("opentelemetry.proto.ExportTraceServiceRequest");
const ExportResponse = root.lookupType("opentelemetry.proto.ExportTraceServiceResponse");

/** The kinds of a span, by their number in the protocol. */
const spanKinds = ["UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"] as const;
/** The codes of a span's status. */
const statusCodes = ["UNSET", "OK", "ERROR"] as const;

/** An attribute's value, flattened: a string, number, boolean, array, or object of a kvlist. */
export type AttributeValue = string | number | boolean | AttributeValue[] | { [key: string]: AttributeValue } | null;

/** A span as the receiver keeps it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: (typeof spanKinds)[number];
  attributes: Record<string, AttributeValue>;
  status: { code: (typeof statusCodes)[number]; message: string };
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, AttributeValue> }[];
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  /** The attributes of the span's resource (`service.name`, …). */
  resource: Record<string, AttributeValue>;
  scope: { name: string; version: string };
  /** The encoding it came in. */
  protocol: "http/protobuf" | "http/json";
}

/** One export request as it came. */
export interface ReceivedExport {
  protocol: "http/protobuf" | "http/json";
  headers: IncomingMessage["headers"];
  /** The bytes as sent (compressed if they were). */
  body: Buffer;
}

/** A listening receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** `<url>/v1/traces`: the value of `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  tracesUrl: string;
  /** Every span received so far, in the order received. */
  readonly spans: ReceivedSpan[];
  /** Every export request received so far. */
  readonly exports: ReceivedExport[];
  /** Every byte received so far (bodies as sent, and as inflated when they were compressed), and every header. */
  bytes(): Buffer;
  /**
   * Waits until at least `count` spans match `predicate`, then resolves with those; rejects after `timeoutMs`
   * (default 10 s, for a loaded machine) naming the spans that did come.
   */
  waitForSpans(predicate: (span: ReceivedSpan) => boolean, timeoutMs?: number, count?: number): Promise<ReceivedSpan[]>;
  /** Forgets what was received. */
  clear(): void;
  close(): Promise<void>;
}

/** Lowercase hex of an id: bytes (protobuf), base64 or hex (JSON). */
function hexId(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  if (typeof value !== "string" || value === "") return "";
  // OTLP/JSON sends ids as hex (the specification's exception to proto3's base64 for bytes).
  if (/^[0-9a-fA-F]+$/.test(value) && (value.length === 32 || value.length === 16)) return value.toLowerCase();
  return Buffer.from(value, "base64").toString("hex");
}

/** An AnyValue, in protobuf's object form or OTLP/JSON's (camelCase either way). */
function anyValue(value: Record<string, unknown> | null | undefined): AttributeValue {
  if (!value) return null;
  if ("stringValue" in value) return String(value.stringValue);
  if ("boolValue" in value) return Boolean(value.boolValue);
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value)
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  if ("kvlistValue" in value)
    return keyValues((value.kvlistValue as { values?: Record<string, unknown>[] }).values) as AttributeValue;
  if ("bytesValue" in value) return hexId(value.bytesValue);
  return null;
}

/** KeyValue pairs as an object. */
function keyValues(pairs: unknown): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const pair of (pairs as { key: string; value?: Record<string, unknown> }[] | undefined) ?? [])
    attributes[pair.key] = anyValue(pair.value);
  return attributes;
}

/** An enum's name from its number (protobuf) or its number or name (JSON). */
function enumName<Name extends string>(names: readonly Name[], value: unknown, prefix: string): Name {
  const name = typeof value === "string" ? value.replace(prefix, "") : names[Number(value ?? 0)];
  return names.find((known) => known === name) ?? (names[0] as Name);
}

/** A 64-bit time: a Long (protobuf), a number or a string (JSON). */
const nanos = (value: unknown): bigint => BigInt(String(value ?? 0));

/** The spans of an export request (protobuf's object form with longs as strings, or OTLP/JSON). */
function spansOf(request: Record<string, unknown>, protocol: ReceivedSpan["protocol"]): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (request.resourceSpans as Record<string, unknown>[] | undefined) ?? []) {
    const resource = keyValues((resourceSpans.resource as { attributes?: unknown } | undefined)?.attributes);
    for (const scopeSpans of (resourceSpans.scopeSpans as Record<string, unknown>[] | undefined) ?? []) {
      const scope = (scopeSpans.scope as { name?: string; version?: string } | undefined) ?? {};
      for (const span of (scopeSpans.spans as Record<string, unknown>[] | undefined) ?? []) {
        const status = (span.status as { code?: unknown; message?: string } | undefined) ?? {};
        spans.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: hexId(span.parentSpanId),
          traceState: String(span.traceState ?? ""),
          name: String(span.name ?? ""),
          kind: enumName(spanKinds, span.kind, "SPAN_KIND_"),
          attributes: keyValues(span.attributes),
          status: { code: enumName(statusCodes, status.code, "STATUS_CODE_"), message: status.message ?? "" },
          events: ((span.events as Record<string, unknown>[] | undefined) ?? []).map((event) => ({
            name: String(event.name ?? ""),
            attributes: keyValues(event.attributes),
          })),
          links: ((span.links as Record<string, unknown>[] | undefined) ?? []).map((link) => ({
            traceId: hexId(link.traceId),
            spanId: hexId(link.spanId),
            attributes: keyValues(link.attributes),
          })),
          startTimeUnixNano: nanos(span.startTimeUnixNano),
          endTimeUnixNano: nanos(span.endTimeUnixNano),
          resource,
          scope: { name: scope.name ?? "", version: scope.version ?? "" },
          protocol,
        });
      }
    }
  }
  return spans;
}

/** The whole body of a request. */
async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a receiver on an ephemeral 127.0.0.1 port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: ReceivedExport[] = [];
  const received: Buffer[] = [];
  const waiters = new Set<() => void>();

  const answer = (res: ServerResponse, status: number, type: string, body: string | Uint8Array) => {
    res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await bodyOf(req);
    received.push(Buffer.from(JSON.stringify(req.headers)), raw);
    if (req.method !== "POST" || req.url?.split("?")[0] !== "/v1/traces")
      return answer(res, 404, "text/plain", "only POST /v1/traces\n");
    const type = req.headers["content-type"]?.split(";")[0]?.trim();
    const protocol =
      type === "application/x-protobuf" ? "http/protobuf" : type === "application/json" ? "http/json" : undefined;
    if (!protocol) return answer(res, 415, "text/plain", "application/x-protobuf or application/json\n");
    let body = raw;
    try {
      if (req.headers["content-encoding"] === "gzip") {
        body = gunzipSync(raw);
        received.push(body);
      }
      const request =
        protocol === "http/protobuf"
          ? ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: Buffer as never, enums: Number })
          : (JSON.parse(body.toString("utf8")) as Record<string, unknown>);
      spans.push(...spansOf(request, protocol));
    } catch (error) {
      return answer(res, 400, "text/plain", `cannot decode the export: ${(error as Error).message}\n`);
    }
    exports.push({ protocol, headers: req.headers, body: raw });
    for (const wake of waiters) wake();
    if (protocol === "http/json") answer(res, 200, "application/json", "{}");
    else answer(res, 200, "application/x-protobuf", ExportResponse.encode(ExportResponse.create({})).finish());
  };
  const listening: Listening = await listenLocal((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) answer(res, 500, "text/plain", `${error.message}\n`);
    });
  });

  return {
    url: listening.url,
    tracesUrl: `${listening.url}/v1/traces`,
    spans,
    exports,
    bytes: () => Buffer.concat(received),
    waitForSpans: (predicate, timeoutMs = 10_000, count = 1) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const matching = spans.filter(predicate);
          if (matching.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const names = spans.map((span) => `${span.kind} ${span.name}`).join(", ") || "none";
          reject(
            new Error(`waitForSpans: ${count} matching span(s) not received in ${timeoutMs} ms (received: ${names})`),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    clear: () => {
      spans.length = 0;
      exports.length = 0;
      received.length = 0;
    },
    close: () => listening.close(),
  };
}
