/**
 * `/metrics` of a gateway with `--workers`: whichever worker a scrape reaches answers the sum over all living
 * workers. The worker asks its primary; the primary collects every serving worker's registry itself and sums them
 * with prom-client's `AggregatorRegistry.aggregate`: its `clusterMetrics()` waits for every worker in
 * `cluster.workers`, so one that had just died (or was not yet listening) held every scrape 5 s and then failed it.
 */
import type { Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import type { Logger } from "@compute-api/runtime";
import { AggregatorRegistry, type Registry } from "prom-client";
import {
  collectRequest,
  collectResponse,
  type Message,
  metricsRequest,
  metricsResponse,
  sendTo,
  type WorkerMetrics,
} from "./cluster-messages.js";

/**
 * How long the primary waits for one worker's registry, in ms. A worker answers within a millisecond unless its
 * event loop is stuck; a scrape then goes on without it rather than failing, as it does for a dead one. Half of
 * Prometheus' default scrape timeout (10 s): on a machine busy enough to delay a worker by a second (one starting
 * up beside it), 1 s left every worker out and answered an empty /metrics.
 */
export const workerMetricsTimeoutMs = 5000;

/** The primary's side: answers the workers' metrics requests from `serving()`'s registries. */
export interface PrimaryMetrics {
  /** Handles a worker's message about metrics (others are ignored). */
  onMessage(worker: Worker, message: Message): void;
  /** Settles what a worker that went was asked, at once: its registry is not coming. */
  forget(worker: Worker): void;
}

/** The primary's side of `/metrics`, over the workers `serving()` gives. */
export function primaryMetrics(serving: () => Worker[], logger: Logger): PrimaryMetrics {
  // Registries asked for and not yet come: by request id, the worker asked and what to do with its answer.
  const collecting = new Map<string, { worker: Worker; settle: (metrics: WorkerMetrics | undefined) => void }>();

  /** One worker's registry, or undefined when the worker goes, fails or does not answer in time. */
  const collectFrom = (worker: Worker) =>
    new Promise<WorkerMetrics | undefined>((resolve) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        logger.warn(
          { pid: worker.process.pid },
          `a worker did not send its metrics within ${workerMetricsTimeoutMs} ms; /metrics sums the others`,
        );
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
    const registries = await Promise.all(serving().map(collectFrom));
    return AggregatorRegistry.aggregate(registries.filter((r) => r !== undefined)).metrics();
  };

  return {
    onMessage: (worker, message) => {
      if (message?.type === collectResponse)
        collecting.get(message.id)?.settle(message.error === undefined ? message.metrics : undefined);
      if (message?.type !== metricsRequest) return;
      sumOfWorkers().then(
        (text) => sendTo(worker, { type: metricsResponse, id: message.id, text }),
        (error: Error) => sendTo(worker, { type: metricsResponse, id: message.id, error: error.message }),
      );
    },
    forget: (worker) => {
      for (const pending of collecting.values()) if (pending.worker === worker) pending.settle(undefined);
    },
  };
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
