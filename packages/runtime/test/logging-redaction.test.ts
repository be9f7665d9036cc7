/**
 * What a log line never holds: the credentials of `Authorization` and `Proxy-Authorization` wherever a line carries
 * headers, and a key in a request line's path in any spelling (percent-encoded, upper case) — for every command,
 * the gateway's lines as the stub's.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger, requestLogger } from "../src/logging.js";

/** A logger whose lines are kept as written. */
function captured() {
  const lines: string[] = [];
  const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines, text: () => lines.join("") };
}

describe("createLogger", () => {
  it.each([
    ["a request's headers", { req: { headers: { "proxy-authorization": "Basic UFJPWFlTRUNSRVQ=" } } }],
    ["headers", { headers: { "proxy-authorization": "Bearer PROXYSECRET" } }],
    ["Authorization", { req: { headers: { authorization: "Bearer AUTHSECRET" } } }],
  ])("redacts the credentials of %s", (_name, fields) => {
    const { logger, text } = captured();
    logger.info(fields, "a line");
    expect(text()).toContain("[Redacted]");
    expect(text()).not.toMatch(/UFJPWFlTRUNSRVQ|PROXYSECRET|AUTHSECRET/);
  });
});

describe("requestLogger", () => {
  const { logger, lines, text } = captured();
  const log = requestLogger(logger);
  const server = createServer((req, res) => {
    log(req, res);
    res.writeHead(404).end();
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([["cak_"], ["cak%5F"], ["cak%5f"], ["CAK_"], ["%63%61%6b%5f"]])(
    "writes a path with a key written %s as [redacted], in its path and its message",
    async (prefix) => {
      const before = lines.length;
      await fetch(`${url}/v1/projects/${prefix}PATHSECRET-0123/cluster-machines/cm-1`);
      // The line is written once the answer is done with.
      await vi.waitFor(() => expect(lines.length).toBe(before + 1));
      expect(JSON.parse(lines.at(-1) ?? "")).toMatchObject({
        req: { path: "/v1/projects/[redacted]" },
        msg: "GET /v1/projects/[redacted] 404",
      });
      expect(text()).not.toContain("PATHSECRET");
    },
  );
});
