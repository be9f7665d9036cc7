/**
 * What the steps of `handle` note about a request, and the shape of the wrappers that read the notes: the metrics,
 * the traces and the recording are attached around the handler (`handler => handler`, as an undici interceptor is
 * around a dispatch), rather than called from inside it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiError } from "@compute-api/contract";
import type { RequestRecord } from "@compute-api/runtime";

/** What the response check said of an upstream response (`compute_api.response_check` on a span). */
export type ResponseVerdict = "passed" | "failed" | "not_checked";

const noFields: readonly string[] = [];

/** What is known of a request as it is served; written by the steps of `handle`, read by the wrappers. */
export class RequestNotes {
  /** The route template of the operation the request was routed to. */
  route: string | undefined = undefined;
  /** Forwarded without the spec's checks: a preflight the backend answers, or a request the spec does not know. */
  unvalidated: "preflight" | "unknown" | undefined = undefined;
  /** The gateway's own error answer: a refusal of the request, or an upstream fault. */
  error: ApiError | undefined = undefined;
  /** The response check's verdict, when an upstream response was answered as the validation mode says. */
  verdict: ResponseVerdict | undefined = undefined;
  /** The fields a failed check named: the contract's violations, or `response.body` decoded past the limit. */
  failedFields: readonly string[] = noFields;
  /** How many violations of the contract the check found (a body decoded past the limit is none). */
  violations = 0;
  /** The body of an upstream response that passed the check, decoded: what a recording keeps. */
  conforming: Uint8Array | undefined = undefined;

  /** `record`: the request's log record, its id (x-request-id) and the operationId once routed. */
  constructor(readonly record: RequestRecord) {}
}

/** The handler of a request the gateway serves: a node:http listener, given the request's notes. */
export type Handler = (req: IncomingMessage, res: ServerResponse, notes: RequestNotes) => Promise<void>;

/** A concern attached around the handler: it returns the handler with the concern added. */
export type HandlerWrapper = (handler: Handler) => Handler;
