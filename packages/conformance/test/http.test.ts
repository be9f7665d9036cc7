import { createServer, Agent as HttpAgent } from "node:http";
import type { Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { send } from "../src/http.js";

/**
 * A backend that answers the first request of each connection and keeps it open, then drops the connection when
 * the next request arrives on it, as a backend does that closed a kept-alive connection the client still held.
 */
const server = createServer((req, res) => {
  const socket = req.socket as Socket & { served?: boolean };
  if (socket.served) return socket.destroy();
  socket.served = true;
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url }));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("send", () => {
  it("sends a request once more on a new connection when a kept-alive one was dropped before answering", async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const path of ["/a", "/b", "/c"]) {
        const answer = await send(base, { method: "POST", path, body: "{}" }, 5000, agent);
        expect([answer.status, answer.json]).toEqual([200, { path }]);
      }
    } finally {
      agent.destroy();
    }
  });
});
