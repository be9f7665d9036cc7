/**
 * Answers: the gateway's own (the error body, JSON), and upstream responses on their way back — checked against
 * the response documented for their status by the compiled contract, then sent as received (status, end-to-end
 * headers, the original body bytes), replaced by 502 (`enforce`) or flagged (`report`).
 */
import type { ServerResponse } from "node:http";
import type { ApiError, Contract, ResponseValidationMode } from "@compute-api/contract";
import type { Logger } from "@compute-api/runtime";
import { decodeBody } from "./content-coding.js";
import { upstreamContractError } from "./gateway-errors.js";
import { clientResponseHeaders } from "./headers.js";
import type { GatewayMetrics } from "./metrics.js";
import type { GatewayTracing } from "./tracing.js";
import type { UpstreamResponse } from "./upstream.js";
import { responseTooLarge } from "./upstream-errors.js";

/** Sends a JSON value (a HEAD response gets the headers only: node:http drops the body). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(body);
}

/** Answers with the interface's error body and the error's headers (`Allow`, `Retry-After`). */
export function sendError(res: ServerResponse, error: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  sendJson(res, error.status, error.toBody());
}

/**
 * Sends an upstream response as received. Content-Length is set from the bytes (kept as is for HEAD and 304,
 * whose length describes a body not sent). When the gateway answers CORS itself, the backend's
 * `Access-Control-*` headers are left out and its `Vary` joins the gateway's.
 */
export function deliver(res: ServerResponse, response: UpstreamResponse, method: string, ownsCors: boolean): void {
  const bodiless = method === "HEAD" || response.status === 304;
  for (const [name, value] of Object.entries(clientResponseHeaders(response.headers, bodiless))) {
    if (ownsCors && name.startsWith("access-control-")) continue;
    const vary = name === "vary" ? res.getHeader("vary") : undefined;
    res.setHeader(name, vary === undefined ? value : `${String(vary)}, ${String(value)}`);
  }
  if (!bodiless && (response.body.length > 0 || response.headers["content-length"] !== undefined))
    res.setHeader("content-length", response.body.length);
  res.statusCode = response.status;
  res.end(response.body);
}

/** What the response path needs, built once per gateway. */
export interface ResponseOptions {
  mode: ResponseValidationMode;
  /** The response limit, which a compressed body's decoded size counts against. */
  maxResponseBytes: number;
  contract: Contract;
  metrics: GatewayMetrics;
  logger: Logger;
  ownsCors: boolean;
  /** Told the check's verdict, when the gateway traces. */
  checked?: GatewayTracing["checked"] | undefined;
  /** Given each answer that passed the check, its body decoded, when the gateway records (`--record`). */
  recorded?: ((operationId: string, status: number, body: Uint8Array) => void) | undefined;
}

/** Answers a request with its upstream response, as the validation mode says. */
export type Respond = (
  res: ServerResponse,
  method: string,
  id: string,
  operationId: string,
  response: UpstreamResponse,
) => void;

/**
 * Creates the response path: the body is decoded (when compressed), parsed and checked against the spec (status,
 * media type, schema), and a conforming response goes out as its original bytes. A violation is counted and
 * logged by field and reason (never the values: a created key is a secret); `enforce` answers 502 instead,
 * `report` sends the response with `x-contract-violations`, `off` checks nothing and decodes nothing. A body whose
 * decoded size is over the limit is a 502 in every checking mode.
 */
export function createRespond({
  mode,
  maxResponseBytes,
  contract,
  metrics,
  logger,
  ownsCors,
  checked,
  recorded,
}: ResponseOptions): Respond {
  return (res, method, id, operationId, response) => {
    if (mode === "off") {
      checked?.(res, "not_checked");
      return deliver(res, response, method, ownsCors);
    }
    const decoded = decodeBody(response.headers["content-encoding"], response.body, maxResponseBytes);
    if ("tooLarge" in decoded) {
      logger.error(
        { reqId: id, operationId, status: response.status },
        "upstream response decodes past the response limit",
      );
      checked?.(res, "failed", ["response.body"]);
      return sendError(res, responseTooLarge(maxResponseBytes));
    }
    const contentType = response.headers["content-type"];
    const violations = contract.checkResponse(operationId, {
      status: response.status,
      contentType: Array.isArray(contentType) ? contentType[0] : contentType,
      ...("violation" in decoded ? { body: response.body, unreadable: decoded.violation } : { body: decoded.bytes }),
    });
    checked?.(
      res,
      violations.length === 0 ? "passed" : "failed",
      violations.map((v) => v.field),
    );
    if (violations.length === 0) {
      if (recorded && "bytes" in decoded) recorded(operationId, response.status, decoded.bytes);
      return deliver(res, response, method, ownsCors);
    }
    metrics.violations.inc({ direction: "response", operation_id: operationId });
    logger.warn(
      { reqId: id, operationId, status: response.status, violations },
      "upstream response breaks the contract",
    );
    if (mode === "enforce") return sendError(res, upstreamContractError(violations));
    res.setHeader("x-contract-violations", String(violations.length));
    deliver(res, response, method, ownsCors);
  };
}
