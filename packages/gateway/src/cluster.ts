/**
 * `--workers N` with node:cluster: the primary forks N workers that share the port, restarts a worker that
 * dies after it served, and answers each worker's `/metrics` with the sum over all workers (prom-client's
 * AggregatorRegistry), so a scrape sees the whole instance whichever worker it reaches.
 */
import cluster, { type Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import type { Logger } from "@compute-api/contract";
import { AggregatorRegistry, type Registry } from "prom-client";

const ready = "compute-gateway:ready";
const failed = "compute-gateway:failed";
const metricsRequest = "compute-gateway:metrics-request";
const metricsResponse = "compute-gateway:metrics-response";

type Message =
  | { type: typeof ready }
  | { type: typeof failed; reason: string }
  | { type: typeof metricsRequest; id: string }
  | { type: typeof metricsResponse; id: string; text?: string; error?: string };

/** Runs the primary: forks the workers and keeps them running until SIGTERM or SIGINT. */
export function runPrimary(workers: number, logger: Logger): void {
  const aggregator = new AggregatorRegistry();
  const served = new WeakSet<Worker>();
  let stopping = false;
  let reason: string | undefined;

  cluster.on("message", (worker, message: Message) => {
    if (message?.type === ready) served.add(worker);
    if (message?.type === failed) reason ??= message.reason;
    if (message?.type !== metricsRequest) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: metricsResponse, id: message.id, text }),
      (error: Error) => worker.send({ type: metricsResponse, id: message.id, error: error.message }),
    );
  });
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    if (!served.has(worker)) {
      // A worker that never listened will not do better the next time (bad spec, port taken): give up, saying
      // why in one line, once for all the workers.
      process.stderr.write(`compute-gateway: cannot start: ${reason ?? "a worker exited before it listened"}\n`);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.kill("SIGTERM");
      process.exitCode = 1;
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, "a worker died; starting another");
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  for (let i = 0; i < workers; i++) cluster.fork();
}

/** In a worker: tells the primary why this worker could not start (the primary says it once for all). */
export function announceFailure(reason: string): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send({ type: failed, reason }, undefined, {}, () => resolve());
  });
}

/** In a worker: tells the primary that this worker serves. */
export function announceReady(): void {
  process.send?.({ type: ready });
}

/** In a worker: lets the primary collect this registry, and returns the text of `/metrics` for all workers. */
export function clusterMetrics(registry: Registry): () => Promise<string> {
  new AggregatorRegistry(); // installs the worker's listener for the primary's collection requests
  AggregatorRegistry.setRegistries([registry]);
  const waiting = new Map<string, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  process.on("message", (message: Message) => {
    if (message?.type !== metricsResponse) return;
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) pending?.reject(new Error(message.error));
    else pending?.resolve(message.text ?? "");
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = randomUUID();
      waiting.set(id, { resolve, reject });
      process.send?.({ type: metricsRequest, id });
    });
}
