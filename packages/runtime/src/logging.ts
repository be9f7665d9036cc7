/**
 * Structured logging with pino: one JSON line per request, written when its response is finished (request id,
 * method, path, operationId, status, duration), never the Authorization or Proxy-Authorization header, any `key`
 * value, nor a key in the path (in any spelling: `redactKeys` of @compute-api/rules). The line is one call on the
 * shared logger, not a child logger per request.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pathOf } from "@compute-api/contract";
import { redactKeys } from "@compute-api/rules";
import { type DestinationStream, type Logger, pino } from "pino";
import { mergeTraceFields, traceLogFields } from "./tracing/log-fields.js";

/** Paths pino replaces with "[Redacted]" wherever they appear in a log line. */
export const redactPaths = [
  "req.headers.authorization",
  'req.headers["proxy-authorization"]',
  "headers.authorization",
  'headers["proxy-authorization"]',
  "authorization",
  "key",
  "*.key",
  "*.*.key",
  "apiKey",
  "*.apiKey",
];

/** Options of the logger. */
export interface LoggerOptions {
  /** pino level; `silent` turns logging off. Default `info`. */
  level?: string;
  /** Where lines go; default stdout. */
  destination?: DestinationStream;
}

/** The status a request line gives a request whose client went away before its answer (nginx's). */
export const clientClosedRequest = 499;

/**
 * Standard output as pino writes to it (sonic-boom, asynchronous), one for every logger of the process. Lines are
 * written in batches, once 4 KiB are waiting and otherwise within 100 ms, as pino's documentation on asynchronous
 * logging suggests: a write per line (each through libuv's thread pool) cost the gateway a tenth to a sixth of its
 * CPU per request at 10 connections. Before a command exits, `flushStdoutLog` (a drain) or pino's exit handler (an
 * uncaught error) writes what is waiting; only a process killed outright loses its last 100 ms of lines.
 */
let stdout: ReturnType<typeof pino.destination> | undefined;

/** The batching of standard output's lines (sonic-boom's `minLength` and `periodicFlush`). */
const stdoutBatch = { bytes: 4096, ms: 100 } as const;

/**
 * Creates the pino logger shared by a server and its request log; by default it writes to standard output. A line
 * written while a span is active carries its `trace_id`, `span_id` and `trace_flags`, as
 * @opentelemetry/instrumentation-pino adds them.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  stdout ??= options.destination
    ? undefined
    : pino.destination({ dest: 1, sync: false, minLength: stdoutBatch.bytes, periodicFlush: stdoutBatch.ms });
  return pino(
    {
      level: options.level ?? "info",
      redact: { paths: redactPaths, censor: "[Redacted]" },
      base: null,
      mixin: traceLogFields,
      mixinMergeStrategy: mergeTraceFields,
    },
    options.destination ?? stdout,
  );
}

/**
 * Before a command exits: waits (at most `timeoutMs`) until the log lines written to standard output are out.
 * Exiting while a write is still on its way makes pino flush synchronously at exit, and sonic-boom's synchronous
 * flush retries a broken pipe (`EPIPE`: the reader of a `| pino-pretty` pipe died) without end, so the process
 * would never exit; after this, a broken pipe has been reported and its flush is a no-op. Lines logged after it are
 * dropped.
 */
export function flushStdoutLog(timeoutMs = 1000): Promise<void> {
  const stream = stdout;
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.once("close", done);
    stream.once("error", done);
    // A line logged after this (a second SIGTERM while the process is on its way out) is dropped: sonic-boom throws on
    // a write once it is closed, which would end the process with exit code 1 instead of its own.
    // (`destroyed` is sonic-boom's own flag, missing from its types.)
    const closed = stream as unknown as { destroyed: boolean };
    const write = stream.write.bind(stream);
    stream.write = (line: string) => (closed.destroyed ? true : write(line));
    stream.end();
  });
}

/** The request id: the caller's `x-request-id` when it is sane, otherwise a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** The log record of one request, filled in while it is served. */
export interface RequestRecord {
  /** The request id, also sent back as `x-request-id`. */
  readonly id: string;
  /** The operation the request was routed to, when known. */
  operationId: string | undefined;
  /** More fields for the line, such as a fault the stub injected. */
  readonly fields: Record<string, unknown>;
}

/** Starts the record of a request; its line is written once the response is finished or the connection closed. */
export type RequestLog = (req: IncomingMessage, res: ServerResponse) => RequestRecord;

/**
 * Creates the request log of a server. `operationIdOf` names the operation of a request when the record was not
 * told it (the stub reads what express-openapi-validator found). A 5xx is logged at `error`, the rest at `info`.
 */
export function requestLogger(
  logger: Logger,
  operationIdOf?: (req: IncomingMessage) => string | undefined,
): RequestLog {
  // The request line holds no header and no body, only what is named below, so it skips the redaction pass:
  // a third of the line's cost. Every other line of the logger is still redacted.
  const lines = logger.child({}, { redact: [] });
  return (req, res) => {
    const started = performance.now();
    const record: RequestRecord = { id: requestId(req), operationId: undefined, fields: {} };
    res.setHeader("x-request-id", record.id);
    // A key in the path (sent there by mistake, or to probe) is no more logged than one in a header.
    const path = redactKeys(pathOf(req.url ?? ""));
    const write = () => {
      // A connection closed before any answer was sent (the client went away): nginx's 499, not Node's default 200.
      const status = res.headersSent ? res.statusCode : clientClosedRequest;
      // Below the logger's level (the stub's `warn`), the line is not built at all.
      if (!lines.isLevelEnabled(status >= 500 ? "error" : "info")) return;
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const operationId = record.operationId ?? operationIdOf?.(req);
      const line = {
        reqId: record.id,
        req: { method: req.method, path },
        res: { status },
        durationMs,
        operationId,
        ...record.fields,
      };
      const message = `${req.method} ${path} ${status}${
        res.writableFinished ? "" : res.headersSent ? " aborted" : " connection closed before the answer"
      }`;
      if (status >= 500) lines.error(line, message);
      else lines.info(line, message);
    };
    res.once("close", write);
    return record;
  };
}

export type { Logger } from "pino";
