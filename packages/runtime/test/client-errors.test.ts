import { createServer, request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { errorBodyErrors } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClientErrors } from "../src/client-errors.js";

/** Writes the bytes and returns everything the server sends until it closes the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let out = "";
    socket.on("data", (c: Buffer) => (out += c.toString("utf8")));
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
    socket.setTimeout(5000, () => reject(new Error("no answer")));
    socket.write(bytes);
  });
}

describe("answerClientErrors", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each([
    [
      "oversized headers are answered 431 with the error body, not an empty answer",
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "HEADERS_TOO_LARGE",
    ],
    [
      "an oversized URL is answered 431 with the error body",
      `GET /${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      "HEADERS_TOO_LARGE",
    ],
    [
      "a malformed request line is answered 400 with the error body, not an empty answer",
      "HELLO\r\n\r\n",
      400,
      "MALFORMED_REQUEST",
    ],
    [
      "malformed chunked encoding is answered 400 with the error body",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
      400,
      "MALFORMED_REQUEST",
    ],
  ])("%s", async (_name, bytes, status, reason) => {
    const answer = await exchange(port, bytes);
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    const parsed: unknown = JSON.parse(body);
    expect(parsed).toMatchObject({ code: status, details: [{ reason, domain: "compute-api" }] });
    expect(errorBodyErrors(parsed)).toEqual([]);
  });

  it("answers a HEAD with oversized headers 431 without a body, which a client would read as the next response", async () => {
    const answer = await exchange(port, `HEAD / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    const [head = "", body] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1.1 431 /);
    expect(head).toMatch(/\r\ncontent-length: [1-9]\d*/i);
    expect(body).toBe("");
  });

  it("lets node:http read the 431 to a HEAD cleanly (it failed with HPE_CLOSED_CONNECTION on the body)", async () => {
    const outcome = await new Promise<{ status?: number; error?: string }>((resolve) => {
      const result: { status?: number; error?: string } = {};
      const req = request(
        { host: "127.0.0.1", port, method: "HEAD", path: "/", headers: { "x-big": "a".repeat(20_000) } },
        (res) => {
          if (res.statusCode !== undefined) result.status = res.statusCode;
          res.resume();
        },
      );
      req.on("error", (error: NodeJS.ErrnoException) => (result.error = error.code ?? error.message));
      req.on("close", () => setTimeout(() => resolve(result), 50));
      req.end();
    });
    expect(outcome).toEqual({ status: 431 });
  });
});
