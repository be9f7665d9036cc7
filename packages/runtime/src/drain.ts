/**
 * Graceful shutdown that a load balancer can follow, as nginx's and Envoy's drains do, for every server of the
 * project (the gateway, the stub, servers of @compute-api/server): the listener closes, every answer from then on
 * says `Connection: close`, a connection that carried a request is closed right after its answer, a connection that
 * stays idle is closed after a grace period (a request may be on its way on it; those it closes are logged at info),
 * and requests still running at the deadline are cut and logged. It resolves when the last connection is closed.
 * The server may listen itself, or be handed its connections (`server.emit("connection", socket)`), as the gateway's
 * workers of `--workers` are.
 * `onShutdownSignal` starts it once on SIGTERM or SIGINT and keeps every later signal from cutting it short.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import type { Logger } from "./logging.js";

/** The drain's defaults, the same for every command (`--shutdown-grace`, `--shutdown-timeout`). */
export const drainDefaults = {
  /** After SIGTERM: how long connections that stay idle are kept, for a request already on its way on them. */
  graceMs: 10_000,
  /** After SIGTERM: how long requests in flight may run before they are cut. */
  timeoutMs: 30_000,
} as const;

/** How a drain proceeds. */
export interface DrainOptions {
  /** How long connections that stay idle are kept open, in ms. */
  graceMs: number;
  /** How long requests in flight may run, in ms; then they are cut. */
  timeoutMs: number;
  logger: Logger;
}

/** What runs once a drain has closed the last connection, before it resolves (the spans' flush). */
const afterDrain = new Set<(timeoutMs: number) => Promise<void>>();

/**
 * Registers `flush` (the tracing exporter's) to run at the end of every drain, once the last connection is closed
 * and before the drain resolves (and its command exits); it is given what is left of the drain's deadline, at
 * least 1 s. Returns a function that removes it.
 */
export function flushOnDrain(flush: (timeoutMs: number) => Promise<void>): () => void {
  afterDrain.add(flush);
  return () => afterDrain.delete(flush);
}

/** Runs every registered flush, each bounded by `timeoutMs`; never rejects. */
function flushAfterDrain(timeoutMs: number): Promise<void> {
  const bounded = [...afterDrain].map(
    (flush) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        flush(timeoutMs).then(resolve, resolve);
      }),
  );
  return Promise.all(bounded).then(() => {});
}

/** A server whose connections are tracked from the start, so that a drain knows which carry a request. */
export interface Drainable {
  /** Starts the drain; resolves when the server has no connection left. */
  drain(options: DrainOptions): Promise<void>;
}

/** Tracks the server's connections and the request each carries; call it before the server accepts any. */
export function drainable(server: Server): Drainable {
  const sockets = new Set<Socket>();
  const answering = new WeakMap<Socket, ServerResponse>();
  let draining = false;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // Before the app's listener, which may answer at once.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, res);
    if (draining) res.setHeader("connection", "close");
  });
  const inFlight = (socket: Socket) => {
    const res = answering.get(socket);
    return res && !res.writableFinished ? res : undefined;
  };

  function drain({ graceMs, timeoutMs, logger }: DrainOptions): Promise<void> {
    draining = true;
    // net's close stops accepting; http's would also close the idle connections at once, racing a request
    // already on its way on them.
    if (server.listening) NetServer.prototype.close.call(server);
    const started = performance.now();
    const drained = new Promise<void>((resolve) => {
      let grace: NodeJS.Timeout | undefined;
      let deadline: NodeJS.Timeout | undefined;
      const done = () => {
        if (sockets.size > 0) return;
        clearTimeout(grace);
        clearTimeout(deadline);
        resolve();
      };
      // A connection still handed over while draining is served and waited for too.
      server.on("connection", (socket: Socket) => socket.once("close", done));
      for (const socket of sockets) socket.once("close", done);
      done();
      for (const socket of sockets) {
        const res = inFlight(socket);
        if (!res) continue;
        if (!res.headersSent) res.setHeader("connection", "close");
        else res.once("finish", () => socket.end());
      }
      grace = setTimeout(() => {
        // Said, because a balancer whose idle time is below the grace closes them first and this never shows.
        const idle = [...sockets].filter((socket) => !inFlight(socket)).length;
        if (idle > 0) logger.info({ connections: idle }, `shutdown grace over: closing ${idle} idle connection(s)`);
        server.closeIdleConnections();
      }, graceMs);
      deadline = setTimeout(() => {
        for (const socket of sockets) {
          const res = inFlight(socket);
          if (res)
            logger.warn(
              { method: res.req.method, url: res.req.url, peer: socket.remoteAddress },
              "request cut: still running at the shutdown deadline",
            );
          socket.destroy();
        }
      }, timeoutMs);
    });
    return drained.then(() => flushAfterDrain(Math.max(1000, timeoutMs - (performance.now() - started))));
  }

  return { drain };
}

/** The signals that start a drain: `kill`'s and systemd's default (SIGTERM), and Ctrl-C (SIGINT). */
const shutdownSignals = ["SIGTERM", "SIGINT"] as const;

/**
 * Calls `stop` on the first SIGTERM or SIGINT, once. Every later one is logged and ignored, so that a signal sent
 * twice (to a process group, by a supervisor and by a primary process, or by an impatient user) does not fall back
 * to Node's default, which ends the process at once and cuts the requests the drain is waiting for, as nginx stays
 * graceful on a repeated SIGTERM. Returns a function that removes the listeners.
 */
export function onShutdownSignal(stop: (signal: NodeJS.Signals) => void, logger?: Logger): () => void {
  let stopping = false;
  const listener = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger?.info({ signal, pid: process.pid }, `${signal} again: already draining, the drain goes on`);
      return;
    }
    stopping = true;
    stop(signal);
  };
  for (const signal of shutdownSignals) process.on(signal, listener);
  return () => {
    for (const signal of shutdownSignals) process.off(signal, listener);
  };
}
