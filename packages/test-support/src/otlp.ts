/**
 * A real OTLP/HTTP trace receiver for tests, in place of an OpenTelemetry Collector (whose binary is not at hand):
 * node:http on an ephemeral 127.0.0.1 port that accepts `POST /v1/traces` in http/protobuf (decoded by protobufjs
 * from the opentelemetry-proto messages of otlp-proto.ts) and in http/json, gzip or not, answers as a collector does, and
 * keeps every span (ids in hex, attributes flattened), and every byte received, for "no key in any exported
 * byte" checks. `waitForSpans` waits for the spans a test expects.
 * @see https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/trace/v1/trace.proto
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { gunzipSync } from "node:zlib";
import { type Listening, listenLocal } from "./listen-local.js";
import { ExportRequest, ExportResponse } from "./otlp-proto.js";
import { type ReceivedSpan, spansOf } from "./otlp-spans.js";

export type { AttributeValue, ReceivedSpan } from "./otlp-spans.js";

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
   * (default 30 s, for a loaded machine) naming the spans that did come.
   */
  waitForSpans(predicate: (span: ReceivedSpan) => boolean, timeoutMs?: number, count?: number): Promise<ReceivedSpan[]>;
  /** Forgets what was received. */
  clear(): void;
  close(): Promise<void>;
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
    waitForSpans: (predicate, timeoutMs = 30_000, count = 1) =>
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
