/**
 * A server under soak, in its own process so that its memory is its own: `stub`, or `gateway <upstream>`.
 * Talks to the parent over IPC: sends `{ type: "ready", url }`; answers `{ type: "memory" }` with its
 * memoryUsage() after a full GC (run with --expose-gc); exits on `{ type: "stop" }`.
 */
import { createServer, type Server } from "node:http";
import { createGateway } from "@compute-api/gateway";
import { answerClientErrors, createLogger } from "@compute-api/runtime";
import { startServer } from "@compute-api/stub-server";
import { listenLocal } from "@compute-api/test-support";
import { userKeys } from "./targets.js";

/** A message from the parent. */
export type ToServer = { type: "memory" } | { type: "stop" };
/** A message to the parent. */
export type FromServer =
  | { type: "ready"; url: string }
  | { type: "memory"; rss: number; heapUsed: number; external: number };

const [role = "stub", upstream = ""] = process.argv.slice(2);
const send = (message: FromServer) => process.send?.(message);

let close: () => Promise<void>;
if (role === "stub") {
  const stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: userKeys });
  close = () => stub.close(1000);
  send({ type: "ready", url: stub.url });
} else {
  const gateway = await createGateway({ upstream, logger: createLogger({ level: "silent" }) });
  const server: Server = createServer(gateway.app);
  answerClientErrors(server);
  const { url } = await listenLocal(server);
  close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
  };
  send({ type: "ready", url });
}

process.on("message", (message: ToServer) => {
  if (message.type === "memory") {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    send({ type: "memory", rss, heapUsed, external });
  } else if (message.type === "stop") {
    void close().finally(() => process.exit(0));
  }
});
// The parent going away takes this server with it.
process.on("disconnect", () => process.exit(0));
