/** Which failures of a backend request are sent again, and how a reused connection is told from a new one. */
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import type { buildConnector } from "undici";
import { describe, expect, it } from "vitest";
import { markingConnector, type RetryReason, retryReason } from "../src/retry.js";

const closedReused = { code: "UND_ERR_SOCKET", message: "other side closed", socket: { bytesRead: 120 } };

describe("retryReason", () => {
  it.each<[string, { method: string; body?: Buffer | PassThrough; error: unknown; want: RetryReason | undefined }]>([
    ["a GET on a reused connection closed under it", { method: "GET", error: closedReused, want: "connection_closed" }],
    [
      "undici's other word for a close",
      { method: "GET", error: { ...closedReused, message: "closed" }, want: "connection_closed" },
    ],
    [
      "a PUT with a buffered body",
      { method: "PUT", body: Buffer.from("{}"), error: closedReused, want: "connection_closed" },
    ],
    ["a PATCH: never sent twice", { method: "PATCH", error: closedReused, want: undefined }],
    ["a POST: never sent twice", { method: "POST", error: closedReused, want: undefined }],
    [
      "a body that cannot be replayed",
      { method: "GET", body: new PassThrough(), error: closedReused, want: undefined },
    ],
    [
      "a new connection (nothing read on it before)",
      { method: "GET", error: { ...closedReused, socket: { bytesRead: 0 } }, want: undefined },
    ],
    [
      "a bad response, not a close",
      { method: "GET", error: { ...closedReused, message: "bad response" }, want: undefined },
    ],
    ["a reset not marked by the connector", { method: "GET", error: { code: "ECONNRESET" }, want: undefined }],
    ["a refused connection", { method: "GET", error: { code: "ECONNREFUSED" }, want: undefined }],
    ["no error at all", { method: "GET", error: undefined, want: undefined }],
  ])("%s", (_name, { method, body, error, want }) => {
    expect(retryReason(method, body, error)).toBe(want);
  });
});

describe("markingConnector", () => {
  /** The error a socket that had read `bytesRead` bytes emits, as seen through the marking connector. */
  function errorOfSocket(bytesRead: number, code: string): Error {
    const socket = Object.assign(new EventEmitter(), { bytesRead });
    socket.on("error", () => {});
    const connector = ((_options, callback) =>
      (callback as (error: null, socket: unknown) => void)(null, socket)) as buildConnector.connector;
    markingConnector(connector)({} as buildConnector.Options, () => {});
    const error = Object.assign(new Error(code), { code });
    socket.emit("error", error);
    return error;
  }

  it.each<[string, { bytesRead: number; code: string; want: RetryReason | undefined }]>([
    ["a reset of a socket that had read a response", { bytesRead: 64, code: "ECONNRESET", want: "connection_reset" }],
    ["a broken pipe on such a socket", { bytesRead: 64, code: "EPIPE", want: "connection_reset" }],
    ["a reset of a new socket", { bytesRead: 0, code: "ECONNRESET", want: undefined }],
  ])("%s", (_name, { bytesRead, code, want }) => {
    expect(retryReason("GET", undefined, errorOfSocket(bytesRead, code))).toBe(want);
  });

  it("passes a connection error on unchanged", () => {
    const refused = new Error("refused");
    const connector = ((_options, callback) =>
      (callback as (error: Error, socket: null) => void)(refused, null)) as buildConnector.connector;
    let seen: unknown;
    markingConnector(connector)({} as buildConnector.Options, (...args) => {
      seen = args[0];
    });
    expect(seen).toBe(refused);
  });
});
