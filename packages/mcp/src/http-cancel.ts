/**
 * Cancellation over stateless Streamable HTTP. A client cancels a call with `notifications/cancelled` in a POST of
 * its own, which a stateless transport hands to a new MCP server that never saw the call. So the HTTP transport
 * keeps the tool calls in flight here, by the client's `Mcp-Session-Id` and the request's id, and a cancellation
 * aborts the one it names. The session id is a correlation id only: compute-mcp issues a random one at
 * `initialize`, keeps nothing for it, and answers a request with any id or none; a client that sends none shares
 * one space of ids with the others that send none. A call is cancelled on the instance that runs it (behind a load
 * balancer: where the cancellation lands).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** What the transport does with one POSTed message: the signal of its tool call, if it is one. */
export interface Followed {
  /** Aborted when the call is cancelled; undefined for anything but a tools/call. */
  signal: AbortSignal | undefined;
  /** Forgets the call (its answer is sent, or its client is gone). */
  release(): void;
}

/** The header of the session id. */
const sessionHeader = "mcp-session-id";

type Message = { method?: unknown; id?: unknown; params?: { requestId?: unknown; reason?: unknown } };

/** The tool calls in flight on this instance, for the HTTP transport. */
export function inFlightCalls() {
  const calls = new Map<string, Set<AbortController>>();
  const keyOf = (session: string, id: unknown) => `${session}\n${typeof id}:${String(id)}`;

  return {
    /**
     * Follows one message: a tools/call is kept until released, a `notifications/cancelled` aborts the call it
     * names, and an `initialize` gets a session id (set on `res`).
     */
    follow(req: IncomingMessage, res: ServerResponse, posted: unknown): Followed {
      const message = (typeof posted === "object" && posted !== null ? posted : {}) as Message;
      const header = req.headers[sessionHeader];
      const session = typeof header === "string" ? header : "";
      if (message.method === "initialize") res.setHeader(sessionHeader, randomUUID());
      if (message.method === "notifications/cancelled") {
        const reason = message.params?.reason;
        for (const call of calls.get(keyOf(session, message.params?.requestId)) ?? []) {
          call.abort(typeof reason === "string" ? reason : "cancelled by the client");
        }
      }
      if (message.method !== "tools/call" || message.id === undefined) {
        return { signal: undefined, release: () => {} };
      }
      const key = keyOf(session, message.id);
      const controller = new AbortController();
      const same = calls.get(key) ?? new Set();
      calls.set(key, same.add(controller));
      return {
        signal: controller.signal,
        release() {
          same.delete(controller);
          if (same.size === 0 && calls.get(key) === same) calls.delete(key);
        },
      };
    },
  };
}

/** The calls in flight of one HTTP handler. */
export type InFlightCalls = ReturnType<typeof inFlightCalls>;
