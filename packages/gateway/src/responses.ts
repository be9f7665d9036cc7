/**
 * Upstream responses on their way back: held to the documented response for their status, then sent as
 * received (status, end-to-end headers, body bytes), replaced by 502 (`enforce`) or flagged (`report`).
 *
 * JSON bodies of statuses below 500 go through express-openapi-validator's response validator, which wraps
 * `res.json` when its middleware runs. `sendUpstreamBytes` is mounted before the validator and replaces
 * `res.json` first, so the validator's wrapper validates the parsed body and then calls ours, which sends the
 * upstream bytes instead of re-serializing the body. The validator skips 5xx bodies, and a body that is not
 * JSON never gets as far as `res.json`; the contract's ResponseCheck covers both.
 */
import type { ServerResponse } from "node:http";
import { responseViolations, undocumentedStatus, upstreamContractError, type FieldViolation } from "@compute-api/contract";
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { operationIdOf, type GatewayContext } from "./context.js";
import { clientResponseHeaders } from "./headers.js";
import type { UpstreamResponse } from "./upstream.js";

/** Sends an upstream response as received; Content-Length is set from the bytes (kept as is for HEAD and 304). */
export function deliver(res: ServerResponse, response: UpstreamResponse, method: string): void {
  // A HEAD or 304 response has no body, and its Content-Length describes the body it stands for.
  const bodiless = method === "HEAD" || response.status === 304;
  const headers = clientResponseHeaders(response.headers, bodiless);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (!bodiless && (response.body.length > 0 || response.headers["content-length"] !== undefined)) res.setHeader("content-length", response.body.length);
  res.statusCode = response.status;
  res.end(response.body);
}

const mediaType = (response: UpstreamResponse) => String(response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
const isJson = (type: string) => type === "application/json" || type.endsWith("+json");

/**
 * Answers with a validated upstream response. Violations found here (5xx, not JSON) are settled at once; a
 * JSON body below 500 goes to `res.json`, where the response validator sits.
 */
export function respond(ctx: GatewayContext, req: Request, res: Response, next: NextFunction, response: UpstreamResponse): void {
  if (ctx.responseValidation === "off") return deliver(res, response, req.method);
  const operationId = operationIdOf(req) ?? "";
  const type = mediaType(response);
  let body: unknown;
  if (response.body.length > 0) {
    const notJson: FieldViolation | undefined = !isJson(type)
      ? { field: "response.header.content-type", description: `must be application/json, not ${type || "absent"}`, reason: "content-type" }
      : undefined;
    if (!notJson) {
      try {
        body = JSON.parse(response.body.toString("utf8"));
      } catch {
        body = undefined;
      }
    }
    const problem = notJson ?? (body === undefined ? { field: "response.body", description: "is not valid JSON", reason: "malformed-json" } : undefined);
    if (problem) {
      const status = ctx.checkResponse.documented(operationId, response.status) ? [] : [undocumentedStatus(response.status)];
      return settle(ctx, req, res, next, response, [...status, problem]);
    }
  }
  if (response.status >= 500) return settle(ctx, req, res, next, response, ctx.checkResponse(operationId, response.status, body));
  ctx.pending.set(res, response);
  res.status(response.status).json(body);
}

/** Sends a response whose violations are known: unchanged when there are none, else as the mode says. */
function settle(ctx: GatewayContext, req: Request, res: Response, next: NextFunction, response: UpstreamResponse, violations: FieldViolation[]): void {
  if (violations.length === 0) return deliver(res, response, req.method);
  const operationId = operationIdOf(req) ?? "unknown";
  ctx.metrics.violations.inc({ direction: "response", operation_id: operationId });
  if (ctx.responseValidation === "enforce") return next(upstreamContractError(violations));
  res.setHeader("x-contract-violations", String(violations.length));
  req.log.warn({ operationId, status: response.status, violations }, "upstream response breaks the contract");
  deliver(res, response, req.method);
}

/** Mounted before the validator: makes `res.json` send the pending upstream bytes once the validator passed them. */
export function sendUpstreamBytes(ctx: GatewayContext): RequestHandler {
  return (req, res, next) => {
    const json = res.json;
    res.json = function sendPending(this: Response, body: unknown) {
      const response = ctx.pending.get(res);
      if (!response) return json.call(this, body);
      ctx.pending.delete(res);
      deliver(res, response, req.method);
      return this;
    };
    next();
  };
}

/**
 * The first error handler: a response-validation error of a pending upstream response is settled by the mode;
 * an error before anything went upstream is a refused request, counted as a request violation.
 */
export function upstreamErrors(ctx: GatewayContext): ErrorRequestHandler {
  return (err, req, res, next) => {
    const response = ctx.pending.get(res);
    if (response) {
      ctx.pending.delete(res);
      return settle(ctx, req, res, next, response, responseViolations(err));
    }
    const status = (err as { status?: number }).status ?? 500;
    if (!ctx.forwarded.has(res) && status < 500) {
      ctx.metrics.violations.inc({ direction: "request", operation_id: operationIdOf(req) ?? "none" });
    }
    next(err);
  };
}
