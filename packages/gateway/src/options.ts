/** The options of a gateway, their defaults, and the check of the upstream URL. */

import { baseUrlProblem } from "@compute-api/client/base-url";
import type { OpenApiDocument, ResponseValidationMode } from "@compute-api/contract";
import { defaultMaxBodyBytes, drainDefaults, type Logger } from "@compute-api/runtime";
import type { Tracer } from "@opentelemetry/api";
import type { Registry } from "prom-client";

/** How a gateway is built; only `upstream` is required. */
export interface GatewayOptions {
  /** Base URL of the backend, such as `http://127.0.0.1:4010`; a path prefix is kept. */
  upstream: string | URL;
  /** `enforce` (default): a non-conforming response becomes 502; `report`: it passes, counted and logged; `off`. */
  responseValidation?: ResponseValidationMode;
  /** How long the backend has to send its whole response, in ms; default 30000. */
  timeoutMs?: number;
  /** Largest request body in bytes; default the contract's 1 MiB. */
  maxBodyBytes?: number;
  /** Largest upstream response body in bytes; a larger one becomes 502. Default 8 MiB. */
  maxResponseBytes?: number;
  /** Forward paths and methods the spec does not know, unvalidated, instead of answering 404/405. */
  passthroughUnknown?: boolean;
  /**
   * Origins allowed by CORS (`*`: any): the gateway answers preflights and sets the CORS headers of every answer
   * itself. Default: none — preflights go to the backend unvalidated, and its CORS headers pass through.
   */
  corsOrigins?: string[];
  /** Most keep-alive connections to the backend; default 128. */
  connections?: number;
  /**
   * How long an idle backend connection is kept, in ms; default 1000, below the shortest common backend
   * keep-alive timeout (gunicorn's 2 s). A backend's `Keep-Alive: timeout=N` lowers it.
   */
  upstreamKeepAliveTimeoutMs?: number;
  /** How long a caller has to send its whole request (headers and body), in ms; then 408. Default 30000. */
  requestTimeoutMs?: number;
  /** pino logger; default a silent one (the command line logs at info on stdout). */
  logger?: Logger;
  /** Also export prom-client's process metrics (CPU, memory, event loop); default false. */
  collectDefaultMetrics?: boolean;
  /** Given the gateway's registry once, returns what produces the text of `/metrics`; default the registry's own text. */
  metricsSource?: (registry: Registry) => () => Promise<string>;
  /** The bundled document; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /**
   * Records what the backend answers into this fixture file (`.yaml`), which `compute-stub --data` serves: the
   * resources of search and PATCH answers that passed the check, merged by id (record.ts). Default none. A file that
   * cannot be written, or has another writer, makes createGateway reject with a RecordingRefused.
   */
  record?: string;
  /**
   * With `record`: also record each caller's API key as a user of the file, who sees what its answers showed, its
   * key (and those createApiKey made for it) as SHA-256 only (record-keys.ts). Default false: no user, no key.
   */
  recordKeys?: boolean;
  /**
   * Traces each request with this OpenTelemetry tracer: a SERVER span per request, a CLIENT span per upstream
   * attempt, the trace context continued from the caller and sent upstream (the registered propagator's and
   * context manager's, as the SDK's `register()` sets them). Default none: no tracing code on a request's path.
   */
  tracer?: Tracer;
}

/** The settings that are required, or whose default is an absence. */
type WithoutDefault =
  | "upstream"
  | "corsOrigins"
  | "logger"
  | "metricsSource"
  | "spec"
  | "tracer"
  | "record"
  | "recordKeys";

/**
 * Defaults of the optional settings: every one of GatewayOptions but those whose default is an absence (no CORS
 * origins, the registry's own metrics text, the spec of @compute-api/spec); `logLevel` is the default logger's.
 */
export const defaults = {
  responseValidation: "enforce",
  timeoutMs: 30_000,
  maxBodyBytes: defaultMaxBodyBytes,
  maxResponseBytes: 8 * 1024 * 1024,
  passthroughUnknown: false,
  connections: 128,
  upstreamKeepAliveTimeoutMs: 1000,
  requestTimeoutMs: 30_000,
  logLevel: "silent",
  collectDefaultMetrics: false,
  /** After SIGTERM: how long connections that stay idle are kept, for a request already on its way on them. */
  shutdownGraceMs: drainDefaults.graceMs,
  /** After SIGTERM: how long requests in flight may run before they are cut. */
  shutdownTimeoutMs: drainDefaults.timeoutMs,
} as const satisfies Record<Exclude<keyof GatewayOptions, WithoutDefault>, unknown> & Record<string, unknown>;

/** The message when no upstream URL was given. */
export const upstreamRequired = "the upstream URL is required, such as http://127.0.0.1:4010";

/**
 * Parses the upstream URL: an http(s) URL of the backend's origin or a path prefix, not ending in /v1, without
 * credentials, query or fragment — checked by the client's `baseUrlProblem`, in the same words; throws a readable
 * error.
 */
export function parseUpstreamUrl(value: string | URL | undefined): URL {
  if (value === undefined || String(value).trim() === "") throw new Error(upstreamRequired);
  const problem = baseUrlProblem(String(value));
  if (problem) throw new Error(`the upstream URL ${problem}`);
  return new URL(value);
}
