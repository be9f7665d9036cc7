/** Starting compute-gateway from its command line: one process, or a node:cluster primary and its workers. */
import cluster from "node:cluster";
import type { Server } from "node:http";
import { createLogger, drainable, flushStdoutLog, type Logger, onShutdownSignal } from "@compute-api/runtime";
import { exitCodes, packageVersion, parseOrExit, processIo } from "@compute-api/runtime/cli";
import { startTracing } from "@compute-api/runtime/tracing";
import { type Tracer, trace } from "@opentelemetry/api";
import { createGateway } from "./app.js";
import { type CliConfig, parseCommandLine } from "./cli.js";
import { announceFailure, announceReady, boundPortVariable, receiveConnections, runPrimary } from "./cluster.js";
import { clusterMetrics } from "./cluster-metrics.js";
import { RecordingRefused } from "./record.js";

/**
 * Builds a gateway from the configuration and listens; on SIGTERM or SIGINT it drains (the contract's drain: a
 * second signal does not cut it short, and it ends with the flush of the spans) and exits as soon as its last
 * connection is closed. With a tracer, each request is traced.
 */
export async function serve(config: CliConfig, logger: Logger, tracer?: Tracer): Promise<Server> {
  const gateway = await createGateway({
    upstream: config.upstream,
    responseValidation: config.responseValidation,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    upstreamKeepAliveTimeoutMs: config.upstreamKeepAliveTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    passthroughUnknown: config.passthroughUnknown,
    ...(config.corsOrigins === undefined ? {} : { corsOrigins: config.corsOrigins }),
    logger,
    collectDefaultMetrics: true,
    ...(config.maxBodyBytes === undefined ? {} : { maxBodyBytes: config.maxBodyBytes }),
    ...(cluster.isWorker ? { metricsSource: clusterMetrics } : {}),
    ...(tracer ? { tracer } : {}),
    ...(config.record === undefined ? {} : { record: config.record, recordKeys: config.recordKeys === true }),
  });
  // Requests Node's parser refuses (oversized headers, malformed HTTP) get the error body too (createServer does it).
  // A worker listens on nothing: its primary hands it connections.
  const server = gateway.app.createServer();
  const connections = drainable(server);
  let port = Number(process.env[boundPortVariable] ?? config.port);
  if (cluster.isWorker) receiveConnections(server);
  else {
    server.listen(config.port, config.host);
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    port = (server.address() as { port: number }).port;
  }
  // Longer than the idle timeout of common load balancers (60 s), so that they close idle connections first.
  server.keepAliveTimeout = 65_000;
  logger.info(
    {
      url: `http://${config.host}:${port}`,
      upstream: config.upstream.href,
      responseValidation: config.responseValidation,
      pid: process.pid,
    },
    "compute-gateway listening",
  );
  const stop = async () => {
    const { shutdownGraceMs: graceMs, shutdownTimeoutMs: timeoutMs } = config;
    logger.info(
      { graceMs, timeoutMs, pid: process.pid },
      "compute-gateway draining: /readyz answers 503, answers close their connection",
    );
    gateway.drain();
    await connections.drain({ graceMs, timeoutMs, logger });
    // The recording's last write failing fails the exit (its cause is logged by the recorder).
    const failed = await gateway.close().then(
      () => false,
      (error: unknown) => {
        logger.error({ err: error, pid: process.pid }, "compute-gateway stopped with a failure");
        return true;
      },
    );
    if (!failed) logger.info({ pid: process.pid }, "compute-gateway stopped: no connection left");
    await flushStdoutLog();
    process.exit(failed ? exitCodes.failed : exitCodes.ok);
  };
  onShutdownSignal(() => void stop(), logger);
  if (cluster.isWorker) announceReady();
  return server;
}

/** The compute-gateway command: parses the arguments, then serves (as a cluster with --workers above 1). */
export async function main(args: string[]): Promise<void> {
  // A worker parses the same command line as its primary, which has said what there was to say of it already.
  const io = cluster.isWorker ? { ...processIo, stderr: () => {} } : processIo;
  const config = parseOrExit(() => parseCommandLine(args, io));
  if (!config) return;
  const logger = createLogger({ level: config.logLevel });
  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary({ workers: config.workers, port: config.port, host: config.host }, logger);
    return;
  }
  try {
    // Each process that serves (each worker, with --workers) traces and exports its own spans, when the OTEL_*
    // variables configure tracing; otherwise no SDK is loaded and the gateway has no tracing code on its path.
    const version = packageVersion(import.meta.url);
    const tracing = await startTracing({ serviceName: "compute-gateway", serviceVersion: version, logger });
    await serve(config, logger, tracing.enabled ? trace.getTracer("@compute-api/gateway", version) : undefined);
  } catch (error) {
    // One line, as the stub's start-up failures are: what went wrong, not a stack (a worker's primary says it).
    // A recording refused (a file that cannot be written, another writer) exits 2, as a usage error does.
    const reason = ((error as Error).message ?? String(error)).split("\n")[0] ?? "";
    if (cluster.isWorker) await announceFailure(reason);
    else process.stderr.write(`compute-gateway: cannot start: ${reason}\n`);
    process.exit(error instanceof RecordingRefused ? exitCodes.usage : exitCodes.failed);
  }
}
