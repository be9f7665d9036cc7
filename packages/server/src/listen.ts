/** Listens: an app on a port, with the error body for what Node's parser refuses, and the drain of every server. */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerClientErrors, type DrainOptions, drainable } from "@compute-api/runtime";
import type { Express } from "express";

/** Where to listen. */
export interface ListenOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /** Address; default 127.0.0.1. */
  host?: string;
}

/** A listening server. */
export interface Listening {
  server: Server;
  /** Base URL, such as `http://127.0.0.1:4010`. */
  url: string;
  /**
   * The drain a load balancer can follow (the contract's, as the gateway's): stops accepting, answers with
   * `Connection: close`, closes idle connections after `graceMs`, cuts requests still running at `timeoutMs`;
   * resolves when the last connection is closed.
   */
  drain(options: DrainOptions): Promise<void>;
  /** Stops accepting connections, lets requests in flight finish (at most `graceMs`, default 5 s), then resolves. */
  close(graceMs?: number): Promise<void>;
}

/** Listens with the app; rejects if the address is taken. */
export async function listen(app: Express, { port, host = "127.0.0.1" }: ListenOptions): Promise<Listening> {
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  // Requests Node's parser refuses (oversized headers, malformed HTTP) get the error body too.
  answerClientErrors(server);
  // Only connections made from now on are tracked: none is made before listen resolves, as nothing knows the port.
  const connections = drainable(server);
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(":") ? `[${address}]` : address;
  return {
    server,
    url: `http://${shown}:${bound}`,
    drain: (options) => connections.drain(options),
    close: (graceMs = 5000) =>
      new Promise((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
