/**
 * Bounded time for every request the server routes: each gets an AbortSignal that fires when the handler timeout
 * passes (the request is then answered 504 at once, whatever its handler or `authenticate` is still waiting for)
 * or when the client goes away before its answer. Handlers get the signal to cancel their work (a database query,
 * a call to another service); an answer that comes after it fired is dropped.
 */
import { deadlineExceeded } from "@compute-api/contract";
import type { Request, RequestHandler, Response } from "express";

/** The default handler timeout: well under the 60 s idle timeout of the usual load balancers. */
export const defaultHandlerTimeoutMs = 30_000;

const signals = new WeakMap<Request, AbortSignal>();

/**
 * The signal of a request: what handlers get, for routes of one's own (`routes`, `adminRoutes`) too; an unaborted
 * one for a request that never passed the deadline middleware.
 */
export function signalOf(req: Request): AbortSignal {
  return signals.get(req) ?? new AbortController().signal;
}

/** Why a request's signal fired: its deadline passed, or its client went away. */
export class RequestAborted extends Error {
  override readonly name = "RequestAborted";
  constructor(readonly why: "deadline" | "client-gone") {
    super(why === "deadline" ? "the request's deadline passed" : "the client closed the connection before its answer");
  }
}

/**
 * The middleware that starts each request's clock. `answer` sends the 504 (the server's error handler, so the
 * body is the interface's and the line is logged like any other failure).
 */
export function requestDeadline(
  timeoutMs: number,
  answer: (error: Error, req: Request, res: Response) => void,
): RequestHandler {
  return (req, res, next) => {
    const controller = new AbortController();
    signals.set(req, controller.signal);
    const timer = setTimeout(() => {
      controller.abort(new RequestAborted("deadline"));
      if (!res.headersSent) answer(deadlineExceeded(timeoutMs), req, res);
    }, timeoutMs);
    res.once("close", () => {
      clearTimeout(timer);
      if (!res.writableFinished) controller.abort(new RequestAborted("client-gone"));
    });
    next();
  };
}
