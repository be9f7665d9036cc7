/**
 * The OpenTelemetry SDK as `startTracing` sets it up, in a module of its own that is imported only when tracing is
 * configured: a `NodeTracerProvider` registered with the W3C trace-context and baggage propagators and the
 * AsyncLocalStorage context manager, the sampler of `OTEL_TRACES_SAMPLER`, and a `BatchSpanProcessor` per exporter
 * (OTLP over http/protobuf or http/json, or the console).
 */
import { context, DiagLogLevel, diag, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as OtlpHttpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpHttpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { Logger } from "pino";
import type { SamplerName, TracingConfig } from "./config.js";

/** What the service says of itself; the variables override it. */
export interface ServiceIdentity {
  serviceName: string;
  serviceVersion?: string | undefined;
}

/** A registered SDK. */
export interface Sdk {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The sampler `OTEL_TRACES_SAMPLER` names. */
function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** The SDK's own warnings and errors (an export the collector refused), as log lines at warn: messages only. */
function forwardDiagnostics(logger: Logger): void {
  const warn = (message: string) => logger.warn({ component: "opentelemetry" }, String(message).slice(0, 1000));
  const ignore = () => {};
  diag.setLogger({ error: warn, warn, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN);
}

/** Sets up and registers the SDK as `config` says. */
export function startSdk(config: TracingConfig, identity: ServiceIdentity, logger: Logger): Sdk {
  forwardDiagnostics(logger);
  const exporters: SpanExporter[] = config.exporters.map((name) => {
    if (name === "console") return new ConsoleSpanExporter();
    const options = { url: config.url, headers: config.headers };
    return config.protocol === "http/json" ? new OtlpHttpJsonExporter(options) : new OtlpHttpProtobufExporter(options);
  });
  const resource = defaultResource().merge(
    resourceFromAttributes({
      // Which process a span came from: each worker of `--workers` exports its own.
      "process.pid": process.pid,
      [ATTR_SERVICE_NAME]: identity.serviceName,
      ...(identity.serviceVersion === undefined ? {} : { [ATTR_SERVICE_VERSION]: identity.serviceVersion }),
      ...config.resourceAttributes,
      ...(config.serviceName === undefined ? {} : { [ATTR_SERVICE_NAME]: config.serviceName }),
    }),
  );
  const provider = new NodeTracerProvider({
    resource,
    sampler: samplerOf(config.sampler, config.ratio),
    spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)),
  });
  // The defaults: W3C trace context and baggage, AsyncLocalStorage.
  provider.register();
  return {
    // The processors' flush exports the spans still buffered, not a batch their timer has already sent on its way;
    // the exporters' own flush waits for those, so that a flush before the exit (the drain's) cuts no export.
    forceFlush: async () => {
      await provider.forceFlush();
      await Promise.all(exporters.map((exporter) => exporter.forceFlush?.()));
    },
    shutdown: async () => {
      await provider.shutdown();
      // So that a later start in the same process (a test's) registers anew.
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    },
  };
}
