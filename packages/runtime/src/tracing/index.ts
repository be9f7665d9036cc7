/**
 * `@compute-api/runtime/tracing`: OpenTelemetry tracing for every server of the project — `startTracing`, which
 * sets up the SDK from the standard `OTEL_*` variables only when they configure it (a log line written in a span then
 * carries its trace fields); and the stable HTTP semantic conventions of a span, with what an error body may tell a trace (its reason and
 * the names of the fields it faults, never a value). Code that makes spans needs only `@opentelemetry/api`.
 */

export {
  type OtlpProtocol,
  type SamplerName,
  type TraceExporterName,
  type TracingConfig,
  TracingConfigError,
  tracingConfig,
  tracingConfigured,
} from "./config.js";
export {
  ATTR_ERROR_FIELDS,
  ATTR_ERROR_REASON,
  ATTR_OPERATION_ID,
  callerContext,
  clientClosedErrorType,
  httpSpanName,
  serverRequestAttributes,
  setErrorDetails,
  setHttpRoute,
  setServerResponse,
  spanMethod,
} from "./http-conventions.js";
export { type StartTracingOptions, startTracing, type Tracing } from "./start-tracing.js";
