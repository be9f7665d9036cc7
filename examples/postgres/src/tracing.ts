/**
 * The example's queries in its traces: when the `OTEL_*` variables configure tracing, the OpenTelemetry pg
 * instrumentation (@opentelemetry/instrumentation-pg) is registered before anything loads `pg`, so that every query
 * through the pool (--database-url) is a CLIENT span under the request's SERVER span. It patches `pg` through
 * require hooks (require-in-the-middle), which also see an ES module's `import pg from "pg"` (Node loads a
 * CommonJS package through its CommonJS loader), but only a load that comes after the registration: the command's
 * entry (bin.ts) calls this first and imports the rest of the program after it. Nothing is loaded when tracing is
 * not configured. PGlite runs in this process and does not go through `pg`: its queries have no spans.
 */
import { tracingConfigured } from "@compute-api/runtime/tracing";

/**
 * Registers the pg instrumentation when tracing is configured; call it before `pg` is first loaded. Query spans are
 * made only under a span (a request's), so start-up's migrations make no traces of their own; they hold the SQL
 * text with its `$1` placeholders, never the values bound to them.
 */
export async function instrumentPg(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!tracingConfigured(env)) return false;
  const [{ registerInstrumentations }, { PgInstrumentation }] = await Promise.all([
    import("@opentelemetry/instrumentation"),
    import("@opentelemetry/instrumentation-pg"),
  ]);
  registerInstrumentations({
    instrumentations: [new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false })],
  });
  return true;
}
