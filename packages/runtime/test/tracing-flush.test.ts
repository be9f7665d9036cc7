/**
 * A flush waits for the export its batch processor has already sent: the drain flushes before the process exits,
 * and a flush that resolved while such an export was still on its way let the exit cut it, losing the last spans
 * (the gateway's SIGTERM tests lost them on a busy machine). Here the receiver holds the export, so the order is
 * certain: the flush may end only after the receiver has answered.
 */
import type { ServerResponse } from "node:http";
import { captureLogs, listenLocal } from "@compute-api/test-support";
import { trace } from "@opentelemetry/api";
import { afterEach, expect, it } from "vitest";
import { startTracing } from "../src/tracing/index.js";

const scheduleDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;
afterEach(() => {
  if (scheduleDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  else process.env.OTEL_BSP_SCHEDULE_DELAY = scheduleDelay;
});

it("a flush waits for the export already on its way, however long the receiver takes", async () => {
  const held: ServerResponse[] = [];
  let arrived: () => void = () => {};
  const exporting = new Promise<void>((resolve) => (arrived = resolve));
  const receiver = await listenLocal((req, res) => {
    req.resume();
    req.on("end", () => {
      held.push(res);
      arrived();
    });
  });
  // The batch processor sends a span 10 ms after it ends, on its own timer.
  process.env.OTEL_BSP_SCHEDULE_DELAY = "10";
  const tracing = await startTracing({
    serviceName: "flush-test",
    logger: captureLogs().logger,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  });
  try {
    trace.getTracer("test").startSpan("work").end();
    await exporting;
    let flushed = false;
    const flush = tracing.forceFlush().then(() => (flushed = true));
    // Every callback already due runs first: a flush that does not wait for the export has ended by then.
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toBe(false);
    for (const res of held) res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    await flush;
    expect(held).toHaveLength(1);
  } finally {
    await tracing.shutdown();
    await receiver.close();
  }
});
