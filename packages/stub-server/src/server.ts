/** Listens: the stub app on a port, with a clean close for shutdown. */

import type { Server } from "node:http";
import { createLogger, isLoopback } from "@compute-api/runtime";
import { listen } from "@compute-api/server";
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
  /**
   * The drain a load balancer can follow, as the gateway's: `/readyz` answers 503, answers close their connection,
   * idle connections close after `graceMs`, requests still running at `timeoutMs` are cut; then it resolves.
   */
  drain(options: { graceMs: number; timeoutMs: number }): Promise<void>;
}

/** Builds the app (compiling every validator) and listens; rejects if the address is taken. */
export async function startServer(options: ServerOptions = {}): Promise<RunningStub> {
  const logger = options.logger ?? createLogger({ level: "silent" });
  const host = options.host ?? "127.0.0.1";
  // The admin API checks the Host of its requests only where the stub listens on a loopback address.
  const admin = options.admin === false ? false : { loopback: isLoopback(host), ...options.admin };
  const stub = await createApp({ ...options, admin, logger });
  const listening = await listen(stub.app, { port: options.port ?? 4010, host });
  return {
    server: listening.server,
    url: listening.url,
    close: async (graceMs) => {
      await listening.close(graceMs);
      await stub.close();
    },
    drain: async ({ graceMs, timeoutMs }) => {
      stub.drain();
      await listening.drain({ graceMs, timeoutMs, logger });
      await stub.close();
    },
  };
}
