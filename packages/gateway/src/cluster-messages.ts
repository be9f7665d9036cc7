/** What the primary of `--workers` and its workers tell each other over node:cluster's IPC channel. */
import type { Worker } from "node:cluster";
import type { MetricObjectWithValues, MetricValue } from "prom-client";

export const ready = "compute-gateway:ready";
export const failed = "compute-gateway:failed";
export const metricsRequest = "compute-gateway:metrics-request";
export const metricsResponse = "compute-gateway:metrics-response";
export const collectRequest = "compute-gateway:collect-request";
export const collectResponse = "compute-gateway:collect-response";
export const connection = "compute-gateway:connection";

/** A worker's registry as prom-client's `getMetricsAsJSON` gives it. */
export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** Every message, by its `type`. */
export type Message =
  | { type: typeof ready }
  | { type: typeof failed; reason: string }
  | { type: typeof metricsRequest; id: string }
  | { type: typeof metricsResponse; id: string; text?: string; error?: string }
  | { type: typeof collectRequest; id: string }
  | { type: typeof collectResponse; id: string; metrics?: WorkerMetrics; error?: string }
  | { type: typeof connection };

/** Sends a message to a worker, never throwing nor emitting 'error' for a worker that has just gone. */
export const sendTo = (worker: Worker, message: Message, sent: (error: Error | null) => void = () => {}): void => {
  try {
    worker.send(message, undefined, sent);
  } catch (error) {
    sent(error as Error);
  }
};
