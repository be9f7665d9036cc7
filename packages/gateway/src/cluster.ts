/**
 * `--workers N` with node:cluster: the primary listens on the port and hands each connection to a worker in turn
 * (as node:cluster's round robin does, but with the listener in reach: on SIGTERM it closes first, so that no
 * connection is accepted for a worker that is draining and then dropped), forks N workers, and restarts a worker
 * that dies after it served. `/metrics` across the workers is cluster-metrics.ts's.
 */
import cluster, { type Worker } from "node:cluster";
import type { Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { type Logger, onShutdownSignal } from "@compute-api/runtime";
import { connection, failed, type Message, ready } from "./cluster-messages.js";
import { primaryMetrics } from "./cluster-metrics.js";

/** The environment variable that tells a worker the port its primary listens on (for its log line). */
export const boundPortVariable = "COMPUTE_GATEWAY_BOUND_PORT";

/** Where the primary listens. */
export interface PrimaryOptions {
  workers: number;
  port: number;
  host: string;
}

/** Runs the primary: listens, forks the workers and hands them connections until SIGTERM or SIGINT. */
export function runPrimary({ workers, port, host }: PrimaryOptions, logger: Logger): void {
  const served = new WeakSet<Worker>();
  // The workers that serve and are connected: a worker that has not said it serves may not listen for a request
  // yet; a disconnected one never answers.
  const serving = () =>
    Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && served.has(w) && w.isConnected() && !w.isDead(),
    );
  const metrics = primaryMetrics(serving, logger);
  let stopping = false;
  let reason: string | undefined;

  cluster.on("message", (worker, message: Message) => {
    if (message?.type === ready) {
      served.add(worker);
      for (const socket of waiting.splice(0)) handOff(socket);
    }
    if (message?.type === failed) reason ??= message.reason;
    metrics.onMessage(worker, message);
  });
  // Connections, each to the next worker that serves, in turn; held (paused, unread) while none does yet.
  const waiting: Socket[] = [];
  let next = 0;
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

  cluster.on("disconnect", metrics.forget);
  cluster.on("exit", (worker, code, signal) => {
    metrics.forget(worker);
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
