/**
 * Which headers cross the gateway: end-to-end headers pass, hop-by-hop headers (RFC 9110 §7.6.1) stop here,
 * and the request gains X-Forwarded-For/-Proto/-Host and x-request-id.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";

/** Header values as node:http and undici hand them over. */
export type Headers = Record<string, string | string[] | undefined>;

const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "http2-settings",
]);

/** The end-to-end headers: without hop-by-hop headers, those the Connection header names, and `drop`. */
export function endToEndHeaders(headers: Headers, drop: readonly string[] = []): Record<string, string | string[]> {
  const connection = headers.connection;
  const named =
    connection === undefined
      ? undefined
      : new Set(
          String(connection)
            .toLowerCase()
            .split(",")
            .map((token) => token.trim()),
        );
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || hopByHop.has(name) || named?.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The headers sent upstream. Host, the body framing and `expect` are the connection's business (undici sets
 * them); a body the parser decompressed is forwarded decompressed, so its Content-Encoding goes too. When the
 * response will be decoded, `acceptEncoding` replaces the caller's. X-Forwarded-Proto and -Host set by a load
 * balancer in front are kept; X-Forwarded-For gains the peer.
 */
export function upstreamRequestHeaders(
  req: IncomingMessage,
  requestId: string,
  decodedBody: boolean,
  acceptEncoding?: string,
): Record<string, string | string[]> {
  const headers = endToEndHeaders(req.headers, [
    "host",
    "content-length",
    "expect",
    ...(decodedBody ? ["content-encoding"] : []),
  ]);
  if (acceptEncoding !== undefined) headers["accept-encoding"] = acceptEncoding;
  const peer = req.socket.remoteAddress ?? "";
  const forwardedFor = req.headers["x-forwarded-for"];
  headers["x-forwarded-for"] = forwardedFor ? `${String(forwardedFor)}, ${peer}` : peer;
  headers["x-forwarded-proto"] ??= (req.socket as TLSSocket).encrypted ? "https" : "http";
  if (req.headers.host !== undefined) headers["x-forwarded-host"] ??= req.headers.host;
  headers["x-request-id"] = requestId;
  return headers;
}

/** The headers of an upstream response sent on to the caller; Content-Length is set again from the bytes sent. */
export function clientResponseHeaders(
  headers: Headers | IncomingHttpHeaders,
  keepLength: boolean,
): Record<string, string | string[]> {
  return endToEndHeaders(headers, keepLength ? [] : ["content-length"]);
}
