/**
 * createForwarder: the gateway's request path without a server of its own, for a server that answers some requests
 * itself and hands the gateway the others (the stub's `--forward`, WireMock's proxy mode): each is checked against
 * the spec, forwarded and its answer checked, exactly as createGateway does (one handler, handle.ts), and recorded
 * when `record` is given. The caller's request log record is filled in, so that a request has one log line.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Contract } from "@compute-api/contract";
import type { RequestRecord } from "@compute-api/runtime";
import { startGatewayPath } from "./app.js";
import type { GatewayOptions } from "./options.js";
import { RequestNotes } from "./request-notes.js";

/** A started forwarder. */
export interface Forwarder {
  /**
   * Checks, forwards and answers a request; `record` is the caller's log record of it, into which the steps write
   * what they find (its `operationId` once routed). Resolves once it is answered; never rejects (a failure is a 500).
   */
  forward(req: IncomingMessage, res: ServerResponse, record: RequestRecord): Promise<void>;
  /** The operation a request is for, by the forwarder's compiled contract (compiled once, at its start). */
  route: Contract["route"];
  /** Writes the recording a last time (rejects when that write failed) and closes the upstream connections. */
  close(): Promise<void>;
}

/**
 * Builds and starts a forwarder; rejects as createGateway does (an unusable upstream URL, a spec that does not
 * compile, a recording refused).
 */
export async function createForwarder(options: GatewayOptions): Promise<Forwarder> {
  const { parts, handler, close } = await startGatewayPath(options);
  return {
    forward: (req, res, record) => handler(req, res, new RequestNotes(record)),
    route: parts.contract.route,
    close,
  };
}
