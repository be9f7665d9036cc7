/**
 * Sending requests exactly as written, with a deadline: node:http (or node:https) for well-formed requests whose
 * parts may be hostile (the path is sent byte for byte, never normalized, after the base URL's own path),
 * node:net for bytes that are not HTTP at all.
 */
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:net";

/** What came back. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** A request as sent: the path (with its query) is written as is. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/** The host of a URL as node:http and node:net take it: an IPv6 address without its brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/** How long any exchange may take before the test calls it a hang. */
export const deadlineMs = 10_000;

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Sends one request — on its own connection, or on one of the agent's kept-alive connections; rejects when no
 * complete answer arrives within the deadline. A kept-alive connection that the backend closed while it was idle
 * (ECONNRESET on a reused socket: the request never reached it) is replaced and the request sent once more, as
 * Node's documentation of `request.reusedSocket` advises.
 */
export function send(
  baseUrl: string,
  req: RawRequest,
  timeoutMs = deadlineMs,
  agent: Agent | false = false,
): Promise<Answer> {
  return sendOnce(baseUrl, req, timeoutMs, agent).catch((error: { code?: string; reusedSocket?: boolean }) => {
    if (error?.reusedSocket && error.code === "ECONNRESET") return sendOnce(baseUrl, req, timeoutMs, agent);
    throw error;
  });
}

function sendOnce(baseUrl: string, req: RawRequest, timeoutMs: number, agent: Agent | false): Promise<Answer> {
  const url = new URL(baseUrl);
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  const path = url.pathname.replace(/\/+$/, "") + req.path;
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = request(
      {
        protocol: url.protocol,
        host: hostOf(url),
        port: url.port,
        method: req.method,
        path,
        headers: req.headers ?? {},
        agent,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
        res.on("error", reject);
      },
    );
    const timer = setTimeout(() => {
      // A socket still connecting means the host never took the connection: ETIMEDOUT, as the system says it.
      const connecting = !r.socket || r.socket.connecting;
      r.destroy();
      reject(
        connecting
          ? Object.assign(new Error(`could not connect within ${timeoutMs} ms`), { code: "ETIMEDOUT" })
          : new Error(`no answer within ${timeoutMs} ms: ${req.method} ${req.path.slice(0, 120)}`),
      );
    }, timeoutMs);
    r.on("error", (error) => {
      clearTimeout(timer);
      // Whether the request may be sent again: nothing came back on a connection kept from before.
      reject(Object.assign(error, { reusedSocket: r.reusedSocket && !answered }));
    });
    r.end(req.body);
  });
}

/** A JSON request with a bearer key: the body is serialized unless it is already text or bytes. */
export function jsonRequest(method: string, path: string, apiKey: string, body?: unknown): RawRequest {
  const headers = {
    authorization: `Bearer ${apiKey}`,
    ...(body === undefined ? {} : { "content-type": "application/json" }),
  };
  return {
    method,
    path,
    headers,
    ...(body === undefined
      ? {}
      : { body: typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  };
}

/**
 * Writes the bytes on a new connection and reads until the server closes it (or, once an answer with a
 * Content-Length is complete, stops there). Resolves with the status and body; a connection closed without any
 * answer resolves with status 0.
 */
export function sendBytes(baseUrl: string, bytes: string | Buffer, timeoutMs = deadlineMs): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostOf(url), port: Number(url.port) });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf("\r\n\r\n");
      const head = (split < 0 ? raw : raw.subarray(0, split)).toString("latin1");
      const text = split < 0 ? "" : raw.subarray(split + 4).toString("utf8");
      const headers: IncomingHttpHeaders = {};
      for (const line of head.split("\r\n").slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), headers, text, json: parseJson(text) });
    };
    const complete = () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.subarray(0, Math.max(split, 0)).toString("latin1"))?.[1];
      return split >= 0 && length !== undefined && raw.length - split - 4 >= Number(length);
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(bytes.toString("latin1").slice(0, 80))}…`),
      );
    }, timeoutMs);
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      if (complete()) finish();
    });
    socket.on("end", finish);
    socket.on("close", finish);
    // A reset after the answer was written still leaves the answer in `chunks`.
    socket.on("error", finish);
    socket.write(bytes);
  });
}
