/** The stub's last handlers: a 404 for what nothing routed, and the one error handler that answers every error. */

import { notFound as notFoundError } from "@compute-api/contract";
import type { Logger } from "@compute-api/contract/http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { fromValidatorError } from "./validator-errors.js";

/**
 * Answers every error with the interface's error body; a 5xx is logged with its stack, never sent, unless it was
 * answered on purpose (`injected`: a fault the caller or the command line asked for).
 */
export function errorHandler(
  logger?: Logger,
  injected: (error: unknown) => boolean = () => false,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = fromValidatorError(err, req.method);
    if (apiError.status >= 500 && !injected(err)) logger?.error({ err, path: req.path }, "request failed");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.set(apiError.headers);
    res.status(apiError.status).json(apiError.toBody());
  };
}

/** 404 for a path the app does not serve (outside what the validator routes). */
export const notFound: RequestHandler = (req, _res, next) => {
  next(notFoundError(`no route for ${req.method} ${req.path.slice(0, 200)}`));
};
