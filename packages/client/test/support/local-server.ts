// Real HTTP servers on 127.0.0.1 for the tests that need a socket: nothing is faked below the client's fetch.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A listening server and what reached it. */
export interface LocalServer {
  /** Its origin, such as `http://127.0.0.1:40123`. */
  url: string;
  /** Method, URL and Authorization header of every request received, in order. */
  received: { method: string; url: string; authorization: string | undefined }[];
  /** Stops accepting connections and keeps those open, so that a request being handled can still be answered. */
  stopListening(): void;
  /** Stops listening and cuts every connection. */
  close(): Promise<void>;
}

/** Listens on an ephemeral port of 127.0.0.1 and answers every request with `handle`. */
export async function startLocalServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LocalServer> {
  const received: LocalServer["received"] = [];
  const server = createServer((request, response) => {
    received.push({
      method: request.method ?? "",
      url: request.url ?? "",
      authorization: request.headers.authorization,
    });
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    stopListening: () => void server.close(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The origin of a port of 127.0.0.1 that was free a moment ago and has nothing listening: connecting is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = await startLocalServer(() => {});
  await server.close();
  return server.url;
}
