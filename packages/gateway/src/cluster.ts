/**
 * `--workers N` with node:cluster: the primary listens on the port and hands each connection to a worker in turn
 * (as node:cluster's round robin does, but with the listener in reach: on SIGTERM it closes first, so that no
 * connection is accepted for a worker that is draining and then dropped), forks N workers, restarts a worker that
 * dies after it served, and answers each worker's `/metrics` with the sum over all living workers, so a scrape
 * sees the whole instance whichever worker it reaches. The primary collects the workers' registries itself and
 * sums them with prom-client's `AggregatorRegistry.aggregate`: its `clusterMetrics()` waits for every worker in
 * `cluster.workers`, so one that had just died (or was not yet listening) held every scrape 5 s and then failed it.
 */
import cluster, { type Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { type Logger, onShutdownSignal } from "@compute-api/contract/http";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from "prom-client";

const ready = "compute-gateway:ready";
const failed = "compute-gateway:failed";
const metricsRequest = "compute-gateway:metrics-request";
const metricsResponse = "compute-gateway:metrics-response";
const collectRequest = "compute-gateway:collect-request";
const collectResponse = "compute-gateway:collect-response";
const connection = "compute-gateway:connection";

/** The environment variable that tells a worker the port its primary listens on (for its log line). */
export const boundPortVariable = "COMPUTE_GATEWAY_BOUND_PORT";

/** A worker's registry as prom-client's `getMetricsAsJSON` gives it. */
type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

type Message =
  | { type: typeof ready }
  | { type: typeof failed; reason: string }
  | { type: typeof metricsRequest; id: string }
  | { type: typeof metricsResponse; id: string; text?: string; error?: string }
  | { type: typeof collectRequest; id: string }
  | { type: typeof collectResponse; id: string; metrics?: WorkerMetrics; error?: string }
  | { type: typeof connection };

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

/** Where the primary listens. */
export interface PrimaryOptions {
  workers: number;
  port: number;
  host: string;
}

/** Runs the primary: listens, forks the workers and hands them connections until SIGTERM or SIGINT. */
export function runPrimary({ workers, port, host }: PrimaryOptions, logger: Logger): void {
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
    // A worker that has not said it serves may not listen for the request yet; a disconnected one never answers.
    const living = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && served.has(w) && w.isConnected() && !w.isDead(),
    );
    const registries = await Promise.all(living.map(collectFrom));
    return AggregatorRegistry.aggregate(registries.filter((r) => r !== undefined)).metrics();
  };

  /** Settles what a worker that went was asked, at once: its registry is not coming. */
  const forget = (worker: Worker) => {
    for (const pending of collecting.values()) if (pending.worker === worker) pending.settle(undefined);
  };

  cluster.on("message", (worker, message: Message) => {
    if (message?.type === ready) {
      served.add(worker);
      for (const socket of waiting.splice(0)) handOff(socket);
    }
    if (message?.type === failed) reason ??= message.reason;
    if (message?.type === collectResponse)
      collecting.get(message.id)?.settle(message.error === undefined ? message.metrics : undefined);
    if (message?.type !== metricsRequest) return;
    sumOfWorkers().then(
      (text) => sendTo(worker, { type: metricsResponse, id: message.id, text }),
      (error: Error) => sendTo(worker, { type: metricsResponse, id: message.id, error: error.message }),
    );
  });
  // Connections, each to the next worker that serves, in turn; held (paused, unread) while none does yet.
  const waiting: Socket[] = [];
  let next = 0;
  const serving = () =>
    Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && served.has(w) && w.isConnected() && !w.isDead(),
    );
  const handOff = (socket: Socket, tries = 0): void => {
    const candidates = serving();
    if (candidates.length === 0) {
      if (waiting.length < 1024) waiting.push(socket);
      else socket.destroy();
      return;
    }
    const worker = candidates[next++ % candidates.length]!;
    try {
      worker.send(
        { type: connection },
        socket,
        {},
        (error) => error && (tries < candidates.length ? handOff(socket, tries + 1) : socket.destroy()),
      );
    } catch {
      if (tries < candidates.length) handOff(socket, tries + 1);
      else socket.destroy();
    }
  };
  const listener: Server = createServer({ pauseOnConnect: true }, (socket) => handOff(socket));
  listener.once("error", (error) => {
    process.stderr.write(`compute-gateway: cannot start: ${error.message}\n`);
    process.exit(1);
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
      listener.close();
      for (const other of Object.values(cluster.workers ?? {})) other?.kill("SIGTERM");
      process.exitCode = 1;
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, "a worker died; starting another");
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    // The listener first: from now on a new connection is refused (a balancer tries the next instance), and
    // none is handed to a worker that is draining.
    listener.close();
    for (const socket of waiting.splice(0)) socket.destroy();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
  };
  // Once: the workers get SIGTERM from here, and a signal sent to the process group reaches them too, which
  // their own onShutdownSignal ignores after the first.
  onShutdownSignal(stop, logger);
  listener.listen(port, host, () => {
    const bound = (listener.address() as { port: number }).port;
    for (let i = 0; i < workers; i++) cluster.fork({ [boundPortVariable]: String(bound) });
  });
}

/** In a worker: serves the connections the primary hands over with `server`. */
export function receiveConnections(server: HttpServer): void {
  process.on("message", (message: Message, socket: Socket | undefined) => {
    if (message?.type !== connection || !socket) return;
    server.emit("connection", socket);
    // The primary accepted it paused (pauseOnConnect), so that it read none of the request.
    socket.resume();
  });
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
