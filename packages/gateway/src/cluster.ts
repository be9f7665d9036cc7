/**
 * `--workers N` with node:cluster: the primary forks N workers that share the port, restarts a worker that
 * dies after it served, and answers each worker's `/metrics` with the sum over all living workers, so a scrape
 * sees the whole instance whichever worker it reaches. The primary collects the workers' registries itself and
 * sums them with prom-client's `AggregatorRegistry.aggregate`: its `clusterMetrics()` waits for every worker in
 * `cluster.workers`, so one that had just died (or was not yet listening) held every scrape 5 s and then failed it.
 */
import cluster, { type Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import type { Logger } from "@compute-api/contract";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from "prom-client";

const ready = "compute-gateway:ready";
const failed = "compute-gateway:failed";
const metricsRequest = "compute-gateway:metrics-request";
const metricsResponse = "compute-gateway:metrics-response";
const collectRequest = "compute-gateway:collect-request";
const collectResponse = "compute-gateway:collect-response";

/** A worker's registry as prom-client's `getMetricsAsJSON` gives it. */
type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

type Message =
  | { type: typeof ready }
  | { type: typeof failed; reason: string }
  | { type: typeof metricsRequest; id: string }
  | { type: typeof metricsResponse; id: string; text?: string; error?: string }
  | { type: typeof collectRequest; id: string }
  | { type: typeof collectResponse; id: string; metrics?: WorkerMetrics; error?: string };

/**
 * How long the primary waits for one worker's registry, in ms. A worker answers within a millisecond unless its
 * event loop is stuck; a scrape then goes on without it rather than failing, as it does for a dead one.
 */
export const workerMetricsTimeoutMs = 1000;

/** Sends a message to a worker, never throwing nor emitting 'error' for a worker that has just gone. */
const sendTo = (worker: Worker, message: Message, sent: (error: Error | null) => void = () => {}) => {
  try {
    worker.send(message, undefined, sent);
  } catch (error) {
    sent(error as Error);
  }
};

/** Runs the primary: forks the workers and keeps them running until SIGTERM or SIGINT. */
export function runPrimary(workers: number, logger: Logger): void {
  const served = new WeakSet<Worker>();
  // Registries asked for and not yet come: by request id, the worker asked and what to do with its answer.
  const collecting = new Map<string, { worker: Worker; settle: (metrics: WorkerMetrics | undefined) => void }>();
  let stopping = false;
  let reason: string | undefined;

  /** One worker's registry, or undefined when the worker goes, fails or does not answer in time. */
  const collectFrom = (worker: Worker) =>
    new Promise<WorkerMetrics | undefined>((resolve) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        logger.warn({ pid: worker.process.pid }, `a worker did not send its metrics within ${workerMetricsTimeoutMs} ms; /metrics sums the others`);
        settle(undefined);
      }, workerMetricsTimeoutMs);
      const settle = (metrics: WorkerMetrics | undefined) => {
        clearTimeout(timer);
        collecting.delete(id);
        resolve(metrics);
      };
      collecting.set(id, { worker, settle });
      sendTo(worker, { type: collectRequest, id }, (error) => error && settle(undefined));
    });

  /** The text of `/metrics`: the sum over the workers that serve and are connected, each asked at once. */
  const sumOfWorkers = async () => {
    // A worker that has not said it serves may not listen for the request yet; a disconnected one never answers.
    const living = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && served.has(w) && w.isConnected() && !w.isDead());
    const registries = await Promise.all(living.map(collectFrom));
    return AggregatorRegistry.aggregate(registries.filter((r) => r !== undefined)).metrics();
  };

  /** Settles what a worker that went was asked, at once: its registry is not coming. */
  const forget = (worker: Worker) => {
    for (const pending of collecting.values()) if (pending.worker === worker) pending.settle(undefined);
  };

  cluster.on("message", (worker, message: Message) => {
    if (message?.type === ready) served.add(worker);
    if (message?.type === failed) reason ??= message.reason;
    if (message?.type === collectResponse) collecting.get(message.id)?.settle(message.error === undefined ? message.metrics : undefined);
    if (message?.type !== metricsRequest) return;
    sumOfWorkers().then(
      (text) => sendTo(worker, { type: metricsResponse, id: message.id, text }),
      (error: Error) => sendTo(worker, { type: metricsResponse, id: message.id, error: error.message }),
    );
  });
  cluster.on("disconnect", forget);
  cluster.on("exit", (worker, code, signal) => {
    forget(worker);
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
  const waiting = new Map<string, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  const reply = (message: Message) => process.send?.(message, undefined, {}, () => {});
  process.on("message", (message: Message) => {
    if (message?.type === collectRequest) {
      registry.getMetricsAsJSON().then(
        (metrics) => reply({ type: collectResponse, id: message.id, metrics }),
        (error: Error) => reply({ type: collectResponse, id: message.id, error: error.message }),
      );
    }
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
      process.send?.({ type: metricsRequest, id }, undefined, {}, (error: Error | null) => {
        if (!error) return;
        // The primary is gone: no answer will come.
        waiting.delete(id);
        reject(error);
      });
    });
}
