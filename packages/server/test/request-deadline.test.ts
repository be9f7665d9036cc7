/**
 * A request whose body is still arriving at its deadline (a client trickling one byte at a time, as a Slowloris
 * does to bodies): 408 with the interface's error body, and the server closes the connection then, rather than
 * holding the socket for the rest of the body. Over a real socket; the deadline is short so that the test is quick.
 */
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { serve } from "./support/server.js";

/** What a raw connection received: the bytes so far, and whether the server ended or closed it. */
interface Received {
  text: string;
  endedByServer: Promise<void>;
}

/** Sends a PATCH's head announcing `length` bytes of body, then one byte of it every `everyMs` until the end. */
function trickle(url: string, length: number, everyMs: number): { socket: Socket; received: Received } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const received: Received = { text: "", endedByServer: Promise.resolve() };
  let timer: NodeJS.Timeout | undefined;
  received.endedByServer = new Promise((resolve) => {
    // `end`: the server's FIN; `close` without our own end() or destroy() is the server's doing too.
    socket.once("end", resolve);
    socket.once("close", () => {
      clearInterval(timer);
      resolve();
    });
  });
  socket.on("data", (chunk: Buffer) => {
    received.text += chunk.toString("latin1");
  });
  // Writes after the server closed fail (EPIPE, ECONNRESET): that is what is tested.
  socket.on("error", () => {});
  socket.write(
    "PATCH /v1/projects/proj-1/cluster-machines/cm-1 HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Authorization: Bearer cak_alice-key\r\nContent-Type: application/json\r\n" +
      `Content-Length: ${length}\r\n\r\n{`,
  );
  let sent = 1;
  timer = setInterval(() => {
    if (sent >= length - 1 || socket.destroyed || !socket.writable) return clearInterval(timer);
    socket.write(" ");
    sent++;
  }, everyMs);
  return { socket, received };
}

/** The status and the JSON body of the first response in `text`, once all of it arrived. */
function responseOf(text: string): { status: number; headers: string; body: unknown } | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const headers = text.slice(0, end).toLowerCase();
  const length = Number(/content-length: (\d+)/.exec(headers)?.[1] ?? Number.NaN);
  const body = text.slice(end + 4, end + 4 + length);
  if (body.length < length) return undefined;
  return { status: Number(text.slice(9, 12)), headers, body: JSON.parse(body) };
}

describe("a request body trickled past the request's deadline", () => {
  it("is answered 408 with the error body, and the server closes the connection then", async () => {
    const { url } = await serve({ handlerTimeoutMs: 300 });
    // 4,000 bytes, one every 50 ms: the body would take over 3 minutes, far past the deadline.
    const { socket, received } = trickle(url, 4000, 50);
    try {
      await expect.poll(() => responseOf(received.text), { timeout: 15_000 }).toBeDefined();
      const response = responseOf(received.text);
      expect(response?.status).toBe(408);
      expect(response?.body).toMatchObject({
        code: 408,
        message: "the request body did not arrive within 300 ms",
        details: [{ reason: "REQUEST_TIMEOUT" }],
      });
      expect(response?.headers).toMatch(/^connection: close$/m);
      // The server ends the connection while the client is still sending: it is not held for the rest of the body.
      await received.endedByServer;
      expect(socket.writable && !socket.destroyed && !socket.readableEnded).toBe(false);
    } finally {
      socket.destroy();
    }
  }, 20_000);
});
