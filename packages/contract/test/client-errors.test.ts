import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClientErrors } from "../src/client-errors.js";
import { createSchemaValidator } from "../src/schema-validator.js";
import { loadSpec } from "../src/spec.js";

const errorBodyErrors = (body: unknown) => createSchemaValidator(loadSpec()).validate("#/components/schemas/ErrorBody", body);

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
    ["oversized headers are answered 431 with the error body, not an empty answer", `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
    ["an oversized URL is answered 431 with the error body", `GET /${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ["a malformed request line is answered 400 with the error body, not an empty answer", "HELLO\r\n\r\n", 400],
    ["malformed chunked encoding is answered 400 with the error body", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n", 400],
  ])("%s", async (_name, bytes, status) => {
    const answer = await exchange(port, bytes);
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    const parsed: unknown = JSON.parse(body);
    expect(parsed).toMatchObject({ code: status });
    expect(errorBodyErrors(parsed)).toEqual([]);
  });
});
