/**
 * The spec's operations as Express routes, each calling its handler with the validated, typed request and its
 * signal, and answering with the operation's success status (its lowest documented 2xx) and what it returns, or
 * with no body when that response has none (a 204). A handler fails by throwing the contract's `ApiError`; anything
 * else it throws is logged and answered 500 with the error body, its message and stack never sent. Once the
 * request's signal has fired (its deadline passed and was answered 504, or its client went away), the handler is
 * not called, and what it returns or throws after that is dropped.
 */
import { ApiError, internalError, type OpenApiDocument, specOperations } from "@compute-api/contract";
import { secretBodies } from "@compute-api/rules";
import type { Logger } from "@compute-api/runtime";
import { type RequestHandler, Router } from "express";
import type { Principals } from "./principals.js";
import { signalOf } from "./request-deadline.js";
import type { HandlerInput, Handlers, OperationId } from "./types.js";

/** `/v1/projects/{projectId}` → `/v1/projects/:projectId`, Express's form of a path template. */
export const expressPath = (template: string): string => template.replace(/\{([^}]+)\}/g, ":$1");

/** The operations of the spec that `handlers` has no function for, in the spec's order. */
export function missingHandlers(spec: OpenApiDocument, handlers: object): string[] {
  return specOperations(spec)
    .map(({ operation }) => String(operation.operationId))
    .filter((operationId) => typeof (handlers as Record<string, unknown>)[operationId] !== "function");
}

/** A router with one route per operation of the spec; throws at start-up, naming each operation without a handler. */
export function operationRoutes<Principal>(
  spec: OpenApiDocument,
  handlers: Handlers<Principal>,
  principals: Principals<Principal>,
  logger: Logger,
): Router {
  const missing = missingHandlers(spec, handlers);
  if (missing.length > 0) {
    const names = missing.map((operationId) => `'${operationId}'`).join(", ");
    throw new Error(
      `handlers: no handler for the operation${missing.length === 1 ? "" : "s"} ${names}: every operation of the spec needs one`,
    );
  }
  const router = Router();
  for (const { path, method, operation, success } of specOperations(spec)) {
    const operationId = operation.operationId as OperationId;
    const handler = handlers[operationId] as unknown as (input: HandlerInput<OperationId, Principal>) => unknown;
    const { status, media } = success;
    const noStore = secretBodies.has(operationId);
    const answer: RequestHandler = async (req, res, next) => {
      const signal = signalOf(req);
      if (signal.aborted) return;
      let body: unknown;
      try {
        body = await handler({
          path: req.params,
          query: req.query,
          body: req.body,
          principal: principals.of(req),
          request: req,
          response: res,
          signal,
        } as HandlerInput<OperationId, Principal>);
      } catch (error) {
        if (signal.aborted) return logger.debug({ err: error, operationId }, "handler failed after its request ended");
        if (error instanceof ApiError) return next(error);
        logger.error({ err: error, operationId }, "handler failed");
        return next(internalError());
      }
      if (signal.aborted) return;
      if (noStore) res.set("Cache-Control", "no-store");
      if (media) res.status(status).json(body);
      else res.status(status).end();
    };
    const route = router.route(expressPath(path)) as unknown as Record<string, (h: RequestHandler) => unknown>;
    route[method]?.(answer);
  }
  return router;
}
