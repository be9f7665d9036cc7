/**
 * `startTracing`: what every command calls at start-up. When the `OTEL_*` variables configure tracing (see
 * config.ts) it imports the SDK (sdk.ts), registers it, and has every drain flush the spans before its command
 * exits; when they do not, it loads nothing and `@opentelemetry/api` stays the no-op it is out of the box.
 */
import type { Logger } from "pino";
import { flushOnDrain } from "../drain.js";
import { type TracingConfig, tracingConfig } from "./config.js";

/** The tracing of a process. */
export interface Tracing {
  /** Whether spans are exported. */
  readonly enabled: boolean;
  /** Exports the spans ended so far. */
  forceFlush(): Promise<void>;
  /** Exports the spans ended so far and stops tracing; a later `startTracing` may start it again. */
  shutdown(): Promise<void>;
}

/** Options of `startTracing`. */
export interface StartTracingOptions {
  /** `service.name` of the spans, unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` say otherwise. */
  serviceName: string;
  /** `service.version` of the spans. */
  serviceVersion?: string;
  /** Where the line saying where spans go and the SDK's warnings (an export that failed) are written. */
  logger: Logger;
  /** The variables to read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Tracing that is not configured. */
const off: Tracing = { enabled: false, forceFlush: async () => {}, shutdown: async () => {} };

/** Where spans go, in words, without the credentials a URL may hold. */
function destination(config: TracingConfig): string {
  return config.exporters
    .map((name) => {
      if (name === "console") return "to the console";
      const url = new URL(config.url);
      return `over OTLP ${config.protocol} to ${url.origin}${url.pathname}`;
    })
    .join(" and ");
}

/**
 * Starts tracing as the `OTEL_*` variables configure it: a no-op, without loading the SDK, when they do not; else
 * the SDK, registered globally. Rejects with a `TracingConfigError` (a one-line message naming the variable)
 * for a value that cannot be honoured, such as `OTEL_EXPORTER_OTLP_PROTOCOL=grpc`.
 */
export async function startTracing(options: StartTracingOptions): Promise<Tracing> {
  const config = tracingConfig(options.env ?? process.env);
  if (config === undefined) return off;
  const { startSdk } = await import("./sdk.js");
  const sdk = startSdk(
    config,
    { serviceName: options.serviceName, serviceVersion: options.serviceVersion },
    options.logger,
  );
  const unregister = flushOnDrain(() => sdk.forceFlush());
  options.logger.info(
    {
      tracing: {
        exporters: config.exporters,
        sampler: config.sampler,
        ...(config.sampler.endsWith("traceidratio") ? { ratio: config.ratio } : {}),
      },
    },
    `tracing: spans exported ${destination(config)} (sampler ${config.sampler})`,
  );
  return {
    enabled: true,
    forceFlush: () => sdk.forceFlush(),
    shutdown: async () => {
      unregister();
      await sdk.shutdown();
    },
  };
}
