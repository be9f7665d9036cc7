/**
 * Graceful shutdown that a load balancer can follow, as nginx's and Envoy's drains do: the listener closes, every
 * answer from then on says `Connection: close`, a connection that carried a request is closed right after its
 * answer, a connection that stays idle is closed after a grace period (a request may be on its way on it), and
 * requests still running at the deadline are cut and logged. It resolves when the last connection is closed.
 * The server may listen itself, or be handed its connections (`server.emit("connection", socket)`), as the
 * workers of `--workers` are.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import type { Logger } from "@compute-api/contract/http";

/** How a drain proceeds. */
export interface DrainOptions {
  /** How long connections that stay idle are kept open, in ms. */
  graceMs: number;
  /** How long requests in flight may run, in ms; then they are cut. */
  timeoutMs: number;
  logger: Logger;
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
    return new Promise((resolve) => {
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
      grace = setTimeout(() => server.closeIdleConnections(), graceMs);
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
  }

  return { drain };
}
