/**
 * What the standard `OTEL_*` variables ask of tracing, read once at start-up, as the OpenTelemetry SDK
 * environment specification defines them. Tracing is **configured** when `OTEL_SDK_DISABLED` is not `true` and
 * either `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or it is unset and an OTLP endpoint is given
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). Unlike the SDK's own default (`otlp` to
 * localhost:4318), nothing set means nothing exported: a server started without these variables loads no SDK.
 * A value the project cannot honour (gRPC, an unknown exporter or sampler) throws a `TracingConfigError` whose
 * message is one line naming the variable.
 * @see https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
 */

/** The exporters `OTEL_TRACES_EXPORTER` may list. */
export type TraceExporterName = "otlp" | "console";

/** The OTLP protocols supported; `grpc` is refused. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** The samplers `OTEL_TRACES_SAMPLER` may name. */
const samplers = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** A sampler of `OTEL_TRACES_SAMPLER`. */
export type SamplerName = (typeof samplers)[number];

/** Tracing as the variables configure it. */
export interface TracingConfig {
  /** The exporters, at least one. */
  exporters: TraceExporterName[];
  /** Where OTLP spans are POSTed: the traces endpoint as given, or the endpoint + `/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  /** Headers sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, then `…_TRACES_HEADERS`); never logged. */
  headers: Record<string, string>;
  sampler: SamplerName;
  /** The ratio of the `…traceidratio` samplers, from 0 to 1. */
  ratio: number;
  /** `OTEL_SERVICE_NAME`, when set. */
  serviceName: string | undefined;
  /** `OTEL_RESOURCE_ATTRIBUTES`, decoded. */
  resourceAttributes: Record<string, string>;
}

/** A tracing variable the project cannot honour; its message is one line naming the variable. */
export class TracingConfigError extends Error {
  override readonly name = "TracingConfigError";
}

/** The OTLP/HTTP endpoint when none is given (a collector on this host). */
const defaultEndpoint = "http://localhost:4318";

/** A variable, trimmed; `undefined` when unset or blank (the specification's "empty is unset"). */
const read = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

/** A list of `key=value` pairs separated by commas, each part percent-decoded (W3C Baggage's form). */
export function parseKeyValues(value: string | undefined, variable: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const part of (value ?? "").split(",")) {
    if (!part.trim()) continue;
    const at = part.indexOf("=");
    const key = at > 0 ? part.slice(0, at).trim() : "";
    if (!key) throw new TracingConfigError(`${variable}: each entry must be key=value, comma-separated`);
    try {
      pairs[decodeURIComponent(key)] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      throw new TracingConfigError(`${variable}: an entry is not valid percent-encoding`);
    }
  }
  return pairs;
}

/** Whether tracing is configured (see the module's comment); throws nothing. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return false;
  const exporters = read(env, "OTEL_TRACES_EXPORTER");
  if (exporters !== undefined) return exporters.split(",").some((name) => name.trim() && name.trim() !== "none");
  return (
    read(env, "OTEL_EXPORTER_OTLP_ENDPOINT") !== undefined ||
    read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") !== undefined
  );
}

/** An absolute http(s) URL, or a one-line error naming the variable. */
function httpUrl(value: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TracingConfigError(`${variable}: '${value.slice(0, 200)}' is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TracingConfigError(`${variable}: an OTLP/HTTP endpoint is an http:// or https:// URL`);
  return url;
}

/** The OTLP traces URL: the signal's endpoint as given, else the endpoint with `v1/traces` appended. */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  const traces = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (traces !== undefined) return httpUrl(traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").href;
  const base = httpUrl(read(env, "OTEL_EXPORTER_OTLP_ENDPOINT") ?? defaultEndpoint, "OTEL_EXPORTER_OTLP_ENDPOINT");
  return new URL(base.pathname.endsWith("/") ? "v1/traces" : `${base.pathname}/v1/traces`, base).href;
}

/** The protocol: the traces' own variable, else the general one, else http/protobuf; gRPC is refused. */
function protocolOf(env: NodeJS.ProcessEnv): OtlpProtocol {
  const variable = read(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const value = read(env, variable) ?? "http/protobuf";
  if (value === "http/protobuf" || value === "http/json") return value;
  if (value === "grpc")
    throw new TracingConfigError(
      `${variable}=grpc is not supported: use http/protobuf (the default) or http/json, on the collector's OTLP/HTTP port (4318)`,
    );
  throw new TracingConfigError(`${variable}: '${value.slice(0, 50)}' is not one of http/protobuf, http/json`);
}

/** The sampler and its ratio. */
function samplerOf(env: NodeJS.ProcessEnv): { sampler: SamplerName; ratio: number } {
  const sampler = read(env, "OTEL_TRACES_SAMPLER") ?? "parentbased_always_on";
  if (!(samplers as readonly string[]).includes(sampler))
    throw new TracingConfigError(`OTEL_TRACES_SAMPLER: '${sampler.slice(0, 50)}' is not one of ${samplers.join(", ")}`);
  const arg = read(env, "OTEL_TRACES_SAMPLER_ARG");
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new TracingConfigError(`OTEL_TRACES_SAMPLER_ARG: '${arg?.slice(0, 50)}' is not a number from 0 to 1`);
  return { sampler: sampler as SamplerName, ratio };
}

/** The exporters `OTEL_TRACES_EXPORTER` lists (`otlp` when unset). */
function exportersOf(env: NodeJS.ProcessEnv): TraceExporterName[] {
  const names = (read(env, "OTEL_TRACES_EXPORTER") ?? "otlp").split(",").map((name) => name.trim());
  const exporters = new Set<TraceExporterName>();
  for (const name of names) {
    if (name === "otlp" || name === "console") exporters.add(name);
    else if (name && name !== "none")
      throw new TracingConfigError(`OTEL_TRACES_EXPORTER: '${name.slice(0, 50)}' is not one of otlp, console, none`);
  }
  return [...exporters];
}

/**
 * The tracing the variables configure, or `undefined` when tracing is not configured; throws a
 * `TracingConfigError` for a value that cannot be honoured.
 */
export function tracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig | undefined {
  if (!tracingConfigured(env)) return undefined;
  const exporters = exportersOf(env);
  const otlp = exporters.includes("otlp");
  return {
    exporters,
    url: otlp ? tracesUrl(env) : "",
    protocol: otlp ? protocolOf(env) : "http/protobuf",
    headers: {
      ...parseKeyValues(read(env, "OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS"),
      ...parseKeyValues(read(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"), "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    },
    ...samplerOf(env),
    serviceName: read(env, "OTEL_SERVICE_NAME"),
    resourceAttributes: parseKeyValues(read(env, "OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES"),
  };
}
