/**
 * The spec's operations as Express routes, each calling its handler with the validated, typed request and its
 * signal, and answering 200 with what it returns. A handler fails by throwing the contract's `ApiError`; anything
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

/** A router with one route per operation of the spec; throws at start-up when a handler is missing. */
export function operationRoutes<Principal>(
  spec: OpenApiDocument,
  handlers: Handlers<Principal>,
  principals: Principals<Principal>,
  logger: Logger,
): Router {
  const router = Router();
  for (const { path, method, operation } of specOperations(spec)) {
    const operationId = operation.operationId as OperationId;
    const handler = handlers[operationId] as unknown as
      | ((input: HandlerInput<OperationId, Principal>) => unknown)
      | undefined;
    if (typeof handler !== "function") throw new Error(`handlers: no handler for the operation '${operationId}'`);
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
      res.status(200).json(body);
    };
    const route = router.route(expressPath(path)) as unknown as Record<string, (h: RequestHandler) => unknown>;
    route[method]?.(answer);
  }
  return router;
}
