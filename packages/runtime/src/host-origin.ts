/**
 * The Host and Origin checks of an endpoint that only this machine's programs should drive (compute-mcp's HTTP
 * transport, the stub's admin API), as the MCP specification's security guidance asks of a local server:
 *
 * 1. Host: on a loopback address, the Host header must name a loopback address or `localhost` — a page whose own
 *    name an attacker re-pointed at 127.0.0.1 (DNS rebinding) sends its own name.
 * 2. Origin, when sent (browsers send it on every request but a same-origin GET or HEAD): a loopback origin on a
 *    loopback address, or one of the allowed origins (`*`: any).
 *
 * How a refusal is answered (its status, its body) is the caller's.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices
 */
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";

/**
 * Whether `host` (an address to listen on, or the host name of a Host header or an origin) is a loopback one:
 * 127.0.0.0/8, ::1 in any spelling, localhost.
 */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || bare.startsWith("::ffff:127.");
}

/** The host name of a Host header or an origin, lower-cased, IPv6 in brackets; undefined when malformed. */
function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes("://") ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Options of {@link hostOriginCheck}. */
export interface HostOriginOptions {
  /** Whether the server listens on a loopback address only: then the Host must name one, and loopback origins pass. */
  loopback: boolean;
  /** Origins allowed besides loopback ones; `*` allows any. */
  allowedOrigins?: readonly string[] | undefined;
}

/** Which check a request failed. */
export type HostOriginRefusal = "host" | "origin";

/** The check of a request's headers: undefined when they pass, else the check they failed (the Host first). */
export function hostOriginCheck({
  loopback,
  allowedOrigins = [],
}: HostOriginOptions): (headers: IncomingHttpHeaders) => HostOriginRefusal | undefined {
  const anyOrigin = allowedOrigins.includes("*");
  return (headers) => {
    if (loopback) {
      const host = hostnameOf(headers.host ?? "");
      if (host === undefined || !isLoopback(host)) return "host";
    }
    const origin = headers.origin;
    if (origin === undefined || anyOrigin || allowedOrigins.includes(origin)) return undefined;
    const host = hostnameOf(origin);
    return loopback && host !== undefined && isLoopback(host) ? undefined : "origin";
  };
}
