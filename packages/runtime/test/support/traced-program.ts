/**
 * A program that traces one span the way a server does, for the tracing suite: started with the `OTEL_*`
 * variables, it calls `startTracing`, writes a log line inside a SERVER span that records an error body, prints
 * `{"ids": …}`, and shuts tracing down (which exports). Run in a process of its own, as a command runs: what it
 * writes to standard output and exports is all there is to check.
 */

import { invalidRequest } from "@compute-api/contract";
import { SpanKind, trace } from "@opentelemetry/api";
import { createLogger } from "../../src/logging.js";
import { setErrorDetails, startTracing } from "../../src/tracing/index.js";

const logger = createLogger();
const tracing = await startTracing({ serviceName: "test-service", serviceVersion: "9.9.9", logger });
const ids = trace.getTracer("test").startActiveSpan("work", { kind: SpanKind.SERVER }, (span) => {
  span.setAttribute("answer", 42);
  const secret = process.env.SECRET ?? "";
  setErrorDetails(span, invalidRequest([{ field: "query", description: secret }]).toBody());
  logger.info({ authorization: secret }, "inside");
  span.end();
  return span.spanContext();
});
process.stdout.write(`${JSON.stringify({ ids, enabled: tracing.enabled })}\n`);
await tracing.shutdown();
