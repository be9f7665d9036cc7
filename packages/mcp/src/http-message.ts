/**
 * The JSON-RPC message of a POST to `/mcp`, read before the SDK's transport sees it, with the runtime's JSON body
 * reader (body-parser: the spec's 1 MiB limit, UTF-8, strict JSON): so that a batch is refused before any of its
 * calls runs, and so that the HTTP transport knows which request a message is (for cancellation). The SDK's
 * transport then gets the parsed message (`parsedBody`) and answers everything else as it does.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { jsonBodyReader } from "@compute-api/runtime";

/** JSON-RPC's error codes, as the SDK's transport answers them. */
export const rpcCodes = { parseError: -32700, invalidRequest: -32600, server: -32000 } as const;

/** Writes a JSON-RPC error without an id, as the SDK answers transport-level refusals. */
export function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** What the body holds: one parsed message, nothing read (not JSON: the SDK answers 415), or what refuses it. */
export type PostedMessage =
  | { message: unknown }
  | { unread: true }
  | { refused: { status: number; code: number; message: string } };

const read = jsonBodyReader();

/** Reads one JSON-RPC message; a batch (a JSON array) is refused, as protocol 2025-11-25 has none. */
export async function readMessage(req: IncomingMessage, res: ServerResponse): Promise<PostedMessage> {
  let value: unknown;
  try {
    ({ value } = await read(req, res));
  } catch (error) {
    const { status = 400, type } = error as { status?: number; type?: string };
    // body-parser's messages may quote the body, so they are not repeated.
    if (status === 413) {
      return { refused: { status, code: rpcCodes.server, message: "Payload Too Large: the body is over 1 MiB" } };
    }
    if (type === "entity.parse.failed") {
      return { refused: { status: 400, code: rpcCodes.parseError, message: "Parse error: Invalid JSON" } };
    }
    return { refused: { status, code: rpcCodes.server, message: "the body could not be read (encoding, charset)" } };
  }
  if (value === undefined) return { unread: true };
  if (Array.isArray(value)) {
    return {
      refused: {
        status: 400,
        code: rpcCodes.invalidRequest,
        message:
          "Invalid Request: JSON-RPC batches are not supported (protocol 2025-11-25 has none); send one message per POST",
      },
    };
  }
  return { message: value };
}
