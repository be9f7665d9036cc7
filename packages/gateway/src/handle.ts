/**
 * handle: the path of a request through the gateway, as numbered steps in the order they run. `createHandle` is
 * given the built parts once (gateway-parts.ts); `handle` is given each request with its notes (request-notes.ts),
 * into which the steps write what they find: the metrics, the traces and the recording read them around it
 * (app.ts). The gateway's own endpoints are answered before it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, hasRequestBody, pathOf, toApiError } from "@compute-api/contract";
import { type CorsHandler, isPreflight, type JsonBody } from "@compute-api/runtime";
import getRawBody from "raw-body";
import { upstreamAcceptEncoding } from "./content-coding.js";
import { type ForwardOptions, forward } from "./forward.js";
import type { GatewayParts } from "./gateway-parts.js";
import type { Handler, RequestNotes } from "./request-notes.js";
import { deliver, sendError } from "./responses.js";
import { isStubAdminTarget, stubAdminRefused } from "./stub-admin.js";
import { normalizeTarget } from "./target.js";
import type { UpstreamResponse } from "./upstream.js";
import { tlsProblem } from "./upstream-errors.js";

/** The declared length of a body, for raw-body to hold the bytes to it (400 when they differ). */
const lengthOf = (req: IncomingMessage): { length?: number } => {
  const length = req.headers["content-length"];
  return length === undefined ? {} : { length: Number(length) };
};

/** Runs a CORS middleware; resolves true when it answered the request itself (a preflight). */
const runCors = (cors: CorsHandler, req: IncomingMessage, res: ServerResponse): boolean => {
  let passed = false;
  cors(req, res, () => {
    passed = true;
  });
  return !passed;
};

/** Answers with an error of the gateway's own — a refusal of the request, or an upstream fault — and notes it. */
function refuse(res: ServerResponse, notes: RequestNotes, error: ApiError): void {
  notes.error = error;
  sendError(res, error);
}

/** Returns the gateway's handler of a request: every request but those of its own endpoints. */
export function createHandle(parts: GatewayParts): Handler {
  const { mode, contract, logger, upstream, maxBodyBytes, readBody, cors, isSpecRoute, respond } = parts;

  /** Forwards a request and resolves with what came back; a fault is answered with its status (502, 503, 504). */
  async function exchange(
    req: IncomingMessage,
    res: ServerResponse,
    notes: RequestNotes,
    options: ForwardOptions,
  ): Promise<UpstreamResponse | undefined> {
    const { id, operationId } = notes.record;
    try {
      return await forward(upstream, req, res, id, options);
    } catch (error) {
      const fault = toApiError(error);
      const cause = (error as { cause?: unknown }).cause ?? error;
      logger.error(
        { reqId: id, operationId, err: cause },
        `upstream request failed: ${tlsProblem(cause) ?? fault.message}`,
      );
      refuse(res, notes, fault);
      return undefined;
    }
  }

  /**
   * Whether a request goes without the spec's checks: a preflight the backend answers, or with
   * --passthrough-unknown what the spec does not describe. Their target is made the one the backend will see first
   * (origin-form, no dot segments), so that a target it would resolve to a spec path is checked as one; a target
   * that cannot be made one is refused (400).
   */
  function unvalidated(req: IncomingMessage, method: string): RequestNotes["unvalidated"] | ApiError {
    const preflight = !cors && isPreflight(req);
    if (!preflight && !isSpecRoute) return undefined;
    const target = normalizeTarget(req.url ?? "/");
    if (target instanceof ApiError) return target;
    req.url = target;
    if (preflight) return "preflight";
    return isSpecRoute?.(method, pathOf(target)) ? undefined : "unknown";
  }

  /** Forwards a request unvalidated: its body read whole, within the limit, before an upstream connection is taken. */
  async function forwardUnvalidated(req: IncomingMessage, res: ServerResponse, notes: RequestNotes): Promise<void> {
    let bytes: Buffer | undefined;
    try {
      bytes = hasRequestBody(req.headers)
        ? await getRawBody(req, { limit: maxBodyBytes, ...lengthOf(req) })
        : undefined;
    } catch (error) {
      return refuse(res, notes, toApiError(error));
    }
    const response = await exchange(req, res, notes, { raw: bytes });
    if (response) deliver(res, response, req.method ?? "GET", false);
  }

  return async function handle(req, res, notes) {
    const method = req.method ?? "GET";
    // 1. The stub's admin API (/__stub/…) changes a backend's whole state: never forwarded, whatever the flags.
    if (isStubAdminTarget(req.url ?? "/")) return refuse(res, notes, stubAdminRefused());
    // 2. CORS: with --cors-origins the gateway answers preflights and sets the headers; without, the backend owns
    //    its CORS policy and preflights go to it unvalidated.
    if (cors && runCors(cors, req, res)) return;
    // 3. Unvalidated: preflights the backend answers, and with --passthrough-unknown what the spec does not describe.
    const kind = unvalidated(req, method);
    if (kind instanceof ApiError) return refuse(res, notes, kind);
    if (kind) {
      notes.unvalidated = kind;
      return forwardUnvalidated(req, res, notes);
    }
    // 4. The request in the stub's order, first its JSON body (400, 413, 415), read once under the limit.
    let body: JsonBody;
    try {
      body = await readBody(req, res);
    } catch (error) {
      return refuse(res, notes, toApiError(error));
    }
    // 5. Its operation (404, 405).
    const match = contract.route(method, req.url ?? "/");
    if (match instanceof ApiError) return refuse(res, notes, match);
    const { operationId } = match.operation;
    notes.record.operationId = operationId;
    notes.route = match.template;
    // 6. The operation's checks (401, 415, 400).
    const problem = contract.checkRequest(match, { url: req.url ?? "/", headers: req.headers, body: body.value });
    if (problem) return refuse(res, notes, problem);
    // 7. Forward what passed, offering only the content codings the gateway can decode when it checks the response.
    const acceptEncoding = mode === "off" ? undefined : upstreamAcceptEncoding(req.headers["accept-encoding"]);
    const route = match.template;
    const response = await exchange(req, res, notes, { parsed: body.bytes, acceptEncoding, operationId, route });
    // 8. Check the response and answer with it, as the validation mode says.
    if (response) respond(res, method, operationId, response, notes);
  };
}
