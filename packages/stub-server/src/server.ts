/** Listens: the stub app on a port, with a clean close for shutdown. */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerClientErrors } from "@compute-api/contract/http";
import { createApp, type StubOptions } from "./app.js";

/** Options of a listening stub. */
export interface ServerOptions extends StubOptions {
  /** Port; 0 picks a free one. Default 4010. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
}

/** A listening stub. */
export interface RunningStub {
  server: Server;
  /** Base URL, such as `http://127.0.0.1:4010`. */
  url: string;
  /** Stops accepting connections, lets requests in flight finish (at most `graceMs`), then resolves. */
  close(graceMs?: number): Promise<void>;
}

/** Builds the app (compiling every validator) and listens; rejects if the address is taken. */
export async function startServer(options: ServerOptions = {}): Promise<RunningStub> {
  const stub = await createApp(options);
  const server: Server = await new Promise((resolve, reject) => {
    const s = stub.app.listen(options.port ?? 4010, options.host ?? "127.0.0.1", (error?: Error) =>
      error ? reject(error) : resolve(s),
    );
  });
  // Requests Node's parser refuses (oversized headers, malformed HTTP) get the error body too.
  answerClientErrors(server);
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    server,
    url: `http://${host}:${port}`,
    close: (graceMs = 5000) =>
      new Promise((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        server.close(() => {
          clearTimeout(force);
          resolve(stub.close());
        });
        server.closeIdleConnections();
      }),
  };
}
