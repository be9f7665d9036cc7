/**
 * Real servers on ephemeral 127.0.0.1 ports: listening a node:http server (or any request listener, an Express
 * app included) on one, and a port that was free a moment ago for a process the suite starts.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";

/** A listening server and how to reach and stop it. */
export interface Listening {
  server: Server;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Closes the server and every connection it holds, idle or not; resolves once it is closed. */
  close(): Promise<void>;
}

/** Listens `listener` (a server, or a request listener for a new one) on an ephemeral 127.0.0.1 port. */
export async function listenLocal(listener: RequestListener | Server): Promise<Listening> {
  const server = typeof listener === "function" ? createServer(listener) : listener;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as { port: number };
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A port on 127.0.0.1 that was free a moment ago (another process may take it before its user binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
