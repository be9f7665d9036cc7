/**
 * Bounded time for every request the server routes: each gets an AbortSignal that fires when the handler timeout
 * passes (the request is then answered at once, whatever its handler or `authenticate` is still waiting for) or
 * when the client goes away before its answer. Handlers get the signal to cancel their work (a database query, a
 * call to another service); an answer that comes after it fired is dropped. At the deadline, a request whose body
 * is complete is answered 504 (the server was slow); one whose body is still arriving is answered 408 with
 * `Connection: close` (the client was slow, as a Slowloris trickling its body is), and its connection is closed once
 * the answer is sent rather than held for the rest of the body.
 */
import { type ApiError, catalogueError, deadlineExceeded } from "@compute-api/contract";
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

/** 408: the request's body had not all arrived at its deadline; the connection is closed after the answer. */
function bodyTimedOut(timeoutMs: number): ApiError {
  const error = catalogueError("REQUEST_TIMEOUT", `the request body did not arrive within ${timeoutMs} ms`);
  error.headers.Connection = "close";
  return error;
}

/**
 * The middleware that starts each request's clock. `answer` sends the 504 or the 408 (the server's error handler,
 * so the body is the interface's and the line is logged like any other failure).
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
      if (res.headersSent) return;
      if (req.complete) return answer(deadlineExceeded(timeoutMs), req, res);
      answer(bodyTimedOut(timeoutMs), req, res);
    }, timeoutMs);
    res.once("close", () => {
      clearTimeout(timer);
      if (!res.writableFinished) controller.abort(new RequestAborted("client-gone"));
    });
    next();
  };
}
