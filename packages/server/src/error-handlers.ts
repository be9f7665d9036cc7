/**
 * A compute server's last handlers: a 404 for what nothing routed, and the one error handler that answers every
 * error with the interface's error body, JSON only, whatever was thrown.
 */

import { type ApiError, internalError, notFound as notFoundError } from "@compute-api/contract";
import type { Logger } from "@compute-api/runtime";
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { authenticationFailureOf } from "./authentication.js";
import { recordErrorAnswer } from "./tracing.js";
import { fromValidatorError } from "./validator-errors.js";

/** Whether an error's status is one an error answer can have: a whole number from 400 to 599. */
const isErrorStatus = (status: number) => Number.isInteger(status) && status >= 400 && status <= 599;

/**
 * Answers every error with the interface's error body; a 5xx is logged with its stack (and its `cause`), never
 * sent, unless it was answered on purpose (`injected`: a fault the caller or the command line asked for). An
 * ApiError with a status no error can have (`99`, `NaN`, `200`, `999`) is a bug of its thrower: answered 500.
 */
export function errorHandler(
  logger?: Logger,
  injected: (error: unknown) => boolean = () => false,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // What `authenticate` threw, as it threw it: the validator keeps only a status and a message of it.
    const thrown: unknown = authenticationFailureOf(req) ?? err;
    let apiError: ApiError = fromValidatorError(thrown, req.method);
    if (!isErrorStatus(apiError.status)) {
      logger?.error({ err: thrown, path: req.path }, `an error of status ${apiError.status} was thrown; answered 500`);
      apiError = internalError();
    } else if (apiError.status >= 500 && !injected(thrown))
      logger?.error({ err: thrown, path: req.path }, "request failed");
    // Answered already: by the deadline (an error that comes after it is dropped), or cut while its body was sent.
    if (res.headersSent) {
      if (!res.writableEnded) res.destroy();
      return;
    }
    sendError(res, apiError, logger);
  };
}

/** Sends an error: its headers, its status, its body. */
export function sendError(res: Response, apiError: ApiError, logger?: Logger): void {
  if (res.headersSent) return;
  recordErrorAnswer(res, apiError);
  try {
    res.set(apiError.headers);
  } catch (error) {
    // A header value Node refuses (a line break in it): the answer goes without the thrower's headers.
    logger?.error({ err: error }, "an error's headers cannot be sent; answered without them");
  }
  res.status(apiError.status).json(apiError.toBody());
}

/** 404 for a path the app does not serve (outside what the validator routes). */
export const notFound: RequestHandler = (req, _res, next) => {
  next(notFoundError(`no route for ${req.method} ${req.path.slice(0, 200)}`));
};
