/**
 * What Node's HTTP parser refuses before any app sees the request — malformed request lines, bad chunked
 * encoding, headers or a URL over the header size limit — answered with the interface's error body too.
 * Node's own answer is an empty 400 or 431.
 * @see https://nodejs.org/api/http.html#event-clienterror
 */
import { type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type ApiError, catalogueError } from "@compute-api/contract";

/** The status, message and ErrorInfo reason for a parser error code. */
function clientErrorOf(code: string | undefined): ApiError {
  if (code === "HPE_HEADER_OVERFLOW") return catalogueError("HEADERS_TOO_LARGE");
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return catalogueError("REQUEST_TIMEOUT");
  return catalogueError("MALFORMED_REQUEST");
}

/**
 * The method of the refused request, read from the bytes Node's parser hands over with the error (they start at
 * the request line when the request arrived in one piece); undefined when they do not start with a method.
 */
function methodOf(error: { rawPacket?: unknown }): string | undefined {
  const raw = error.rawPacket;
  if (!Buffer.isBuffer(raw)) return undefined;
  return /^([A-Z]{3,10}) /.exec(raw.subarray(0, 12).toString("latin1"))?.[1];
}

/**
 * Makes the server answer requests its HTTP parser refuses with the error body, then close the connection. A
 * response to HEAD carries no body (RFC 9110 §9.3.2): a client would read it as the start of the next response.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex) => {
    // A response already under way on this connection cannot be followed by another one.
    const inFlight =
      (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight) {
      socket.destroy();
      return;
    }
    const apiError = clientErrorOf(error.code);
    const body = JSON.stringify(apiError.toBody());
    socket.end(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${methodOf(error) === "HEAD" ? "" : body}`,
    );
  });
}
