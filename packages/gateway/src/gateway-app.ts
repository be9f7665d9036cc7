/**
 * The gateway's request listener made servable: the GatewayApp type and gatewayApp, which gives a built listener
 * its createServer and listen — the node:http server settings (request timeout, Node's refusals answered with the
 * error body). Built once at start-up; nothing here is on the path of a request.
 */

import { createServer, type RequestListener, type Server } from "node:http";
import { answerClientErrors } from "@compute-api/runtime";

/** The request listener of a gateway; `listen` starts a node:http server on it, as an Express app's does. */
export interface GatewayApp extends RequestListener {
  /**
   * Creates a node:http server for the gateway, not listening: what Node's parser refuses is answered with the
   * error body, and a request must arrive whole within the request timeout.
   */
  createServer(): Server;
  /** Creates a server for the gateway (see createServer) and listens. */
  listen(port: number, host?: string, callback?: () => void): Server;
}

/** The listener itself, given createServer and listen for servers that read a request within `requestTimeout` ms. */
export function gatewayApp(listener: RequestListener, requestTimeout: number): GatewayApp {
  const serverFor = (): Server => {
    // A request is read whole within the request timeout (408 after), checked every second rather than Node's 30 s.
    const server = createServer(
      {
        requestTimeout,
        headersTimeout: Math.min(60_000, requestTimeout),
        connectionsCheckingInterval: Math.min(1000, requestTimeout),
      },
      listener,
    );
    answerClientErrors(server);
    return server;
  };
  return Object.assign(listener, {
    createServer: serverFor,
    listen(port: number, host?: string, callback?: () => void): Server {
      const server = serverFor();
      return host === undefined ? server.listen(port, callback) : server.listen(port, host, callback);
    },
  });
}
