import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientResponseHeaders, endToEndHeaders, upstreamRequestHeaders } from "../src/headers.js";

describe("endToEndHeaders", () => {
  it.each([
    [
      "drops every hop-by-hop header",
      {
        connection: "keep-alive",
        "keep-alive": "timeout=5",
        te: "trailers",
        trailer: "x",
        "transfer-encoding": "chunked",
        upgrade: "h2c",
        "proxy-authorization": "Basic x",
        "proxy-authenticate": "Basic",
        "x-a": "1",
      },
      { "x-a": "1" },
    ],
    [
      "drops what Connection names",
      { connection: "close, X-Secret-Hop", "x-secret-hop": "1", "x-a": "1" },
      { "x-a": "1" },
    ],
    [
      "keeps end-to-end headers and repeated values",
      { authorization: "Bearer k", "set-cookie": ["a=1", "b=2"], "cache-control": "no-store" },
      { authorization: "Bearer k", "set-cookie": ["a=1", "b=2"], "cache-control": "no-store" },
    ],
  ])("%s", (_name, given, want) => {
    expect(endToEndHeaders(given)).toEqual(want);
  });
});

const incoming = (headers: IncomingMessage["headers"], remoteAddress = "192.0.2.10") =>
  ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe("upstreamRequestHeaders", () => {
  it.each([
    [
      "adds X-Forwarded-* and the request id",
      {
        given: incoming({ host: "gw.example:8080", authorization: "Bearer k", "content-length": "12" }),
        decoded: false,
      },
      {
        authorization: "Bearer k",
        "x-forwarded-for": "192.0.2.10",
        "x-forwarded-proto": "http",
        "x-forwarded-host": "gw.example:8080",
        "x-request-id": "id-1",
      },
    ],
    [
      "appends to X-Forwarded-For and keeps a load balancer's proto and host",
      {
        given: incoming({
          host: "gw",
          "x-forwarded-for": "203.0.113.1",
          "x-forwarded-proto": "https",
          "x-forwarded-host": "api.example",
        }),
        decoded: false,
      },
      {
        "x-forwarded-for": "203.0.113.1, 192.0.2.10",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "api.example",
        "x-request-id": "id-1",
      },
    ],
    [
      "drops Content-Encoding of a body forwarded decompressed, and expect",
      { given: incoming({ host: "gw", "content-encoding": "gzip", expect: "100-continue" }), decoded: true },
      {
        "x-forwarded-for": "192.0.2.10",
        "x-forwarded-proto": "http",
        "x-forwarded-host": "gw",
        "x-request-id": "id-1",
      },
    ],
  ])("%s", (_name, { given, decoded }, want) => {
    expect(upstreamRequestHeaders(given, "id-1", decoded)).toEqual(want);
  });
});

describe("clientResponseHeaders", () => {
  it("drops Content-Length unless asked to keep it (HEAD)", () => {
    expect(clientResponseHeaders({ "content-length": "5", "content-type": "application/json" }, false)).toEqual({
      "content-type": "application/json",
    });
    expect(clientResponseHeaders({ "content-length": "5" }, true)).toEqual({ "content-length": "5" });
  });
});
