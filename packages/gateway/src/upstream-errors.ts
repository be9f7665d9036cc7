/** The gateway's answers to a failed backend request: timeouts, TLS problems, unreachable or lost backends. */
import type { ApiError } from "@compute-api/contract";
import {
  upstreamConnectionLost,
  upstreamResponseTooLarge,
  upstreamTimeout,
  upstreamTlsFailed,
  upstreamUnavailable,
} from "./gateway-errors.js";

// Errors that mean no connection could be made, as opposed to one that broke.
const unreachable = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);
// undici's own timeouts, set to the same deadline, may fire a moment before the gateway's.
const timeouts = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

const errorCode = (error: unknown): string | undefined => {
  const e = error as { code?: string; cause?: { code?: string }; errors?: { code?: string }[] } | undefined;
  return e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
};

// OpenSSL's and Node's codes of a TLS handshake or certificate that failed.
const tlsCodes =
  /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH$)/;

/**
 * What went wrong with TLS, in words for the log line, or undefined when the failure is not about TLS. The
 * commonest cause is an https:// upstream URL in front of a server that speaks plain HTTP.
 */
export function tlsProblem(error: unknown): string | undefined {
  const code = errorCode(error) ?? "";
  const message = (error as Error | undefined)?.message ?? "";
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST/.test(code))
    return `the upstream does not speak TLS: is it plain HTTP behind an https:// URL? (${code})`;
  if (tlsCodes.test(code)) return `TLS error with the upstream: ${code}: ${message.split("\n")[0]}`;
  if (/before secure TLS connection was established/.test(message))
    return "TLS error with the upstream: it closed the connection during the TLS handshake";
  return undefined;
}

/** Maps a failed request onto the gateway's answer; the cause is kept (not enumerable) for the log line. */
export function faultError(error: unknown, timeoutMs: number, timedOut: boolean): ApiError {
  let apiError: ApiError;
  if (timedOut || timeouts.has(errorCode(error) ?? "")) {
    apiError = upstreamTimeout(timeoutMs);
  } else if (tlsProblem(error)) {
    apiError = upstreamTlsFailed();
  } else if (unreachable.has(errorCode(error) ?? "")) {
    apiError = upstreamUnavailable();
  } else {
    apiError = upstreamConnectionLost();
  }
  Object.defineProperty(apiError, "cause", { value: error, enumerable: false });
  return apiError;
}

/** 502: the backend's response body (decoded, when it is compressed) is larger than the limit. */
export function responseTooLarge(maxResponseBytes: number): ApiError {
  return upstreamResponseTooLarge(maxResponseBytes);
}
