/**
 * Structured logging with pino: one JSON line per request (method, path, operationId, status, duration),
 * never the Authorization header nor any `key` value.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type DestinationStream, type Logger } from "pino";
import { pinoHttp, type HttpLogger } from "pino-http";

/** Paths pino replaces with "[Redacted]" wherever they appear in a log line. */
export const redactPaths = [
  "req.headers.authorization",
  "headers.authorization",
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

/** Creates the pino logger shared by a server and its request logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: options.level ?? "info", redact: { paths: redactPaths, censor: "[Redacted]" }, base: null },
    options.destination,
  );
}

type RequestWithOpenApi = IncomingMessage & { openapi?: { schema?: { operationId?: string } }; originalUrl?: string };

/** The request id: the caller's `x-request-id` when it is sane, otherwise a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** Logs one line per request when its response finishes (pino-http), with the operationId the validator found. */
export function requestLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestId(req);
      res.setHeader("x-request-id", id);
      return id;
    },
    quietReqLogger: true,
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    customAttributeKeys: { responseTime: "durationMs" },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : "info"),
    customProps: (req: RequestWithOpenApi) => ({ operationId: req.openapi?.schema?.operationId }),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split("?")[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: pino.stdSerializers.err,
    },
    wrapSerializers: false,
  });
}

function pathOf(req: IncomingMessage): string {
  return ((req as RequestWithOpenApi).originalUrl ?? req.url ?? "").split("?")[0] ?? "";
}

export type { Logger } from "pino";
export type { ServerResponse };
