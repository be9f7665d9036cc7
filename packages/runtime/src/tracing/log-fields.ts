/**
 * The trace of a log line, as @opentelemetry/instrumentation-pino writes it: a line written while a span is active
 * carries `trace_id`, `span_id` and `trace_flags` (`01`: sampled), so that a log store links it to its trace. The
 * shared logger (`createLogger`) calls it for every line; without an active span it returns one shared empty
 * object, which `mergeTraceFields` skips, so a line of an untraced process allocates nothing more.
 */
import { isSpanContextValid, trace } from "@opentelemetry/api";

/** The fields of a line written outside any span. */
const noTraceFields: Readonly<Record<string, string>> = Object.freeze({});

/** The active span's `trace_id`, `span_id` and `trace_flags`, or an empty object (pino's `mixin`). */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return noTraceFields;
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return noTraceFields;
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    trace_flags: `0${context.traceFlags.toString(16)}`,
  };
}

/** pino's `mixinMergeStrategy` for `traceLogFields`: the line's own fields, after the trace's when there is one. */
export function mergeTraceFields(line: object, fields: object): object {
  return fields === noTraceFields ? line : Object.assign(fields, line);
}
