/** What the gateway's middleware share: built once by createGateway. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponseCheck, ResponseValidationMode } from "@compute-api/contract";
import type { GatewayMetrics } from "./metrics.js";
import type { Upstream, UpstreamResponse } from "./upstream.js";

/** State of one gateway. */
export interface GatewayContext {
  upstream: Upstream;
  metrics: GatewayMetrics;
  responseValidation: ResponseValidationMode;
  /** Checks the responses express-openapi-validator does not (5xx, bodies that are not JSON). */
  checkResponse: ResponseCheck;
  /** The request body bytes the JSON parser read, by request. */
  rawBodies: WeakMap<IncomingMessage, Buffer>;
  /** An upstream response handed to the response validator and not yet sent, by response. */
  pending: WeakMap<ServerResponse, UpstreamResponse>;
  /** Responses that went upstream, so a later error is not a request violation. */
  forwarded: WeakSet<ServerResponse>;
}

/** The operationId express-openapi-validator found for a request, if any. */
export function operationIdOf(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
}
