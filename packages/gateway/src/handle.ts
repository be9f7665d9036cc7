/**
 * The path of a request through the gateway, in the order it runs: `createHandle` takes the built parts
 * (gateway-parts.ts) and returns `handle`, which serves one request with them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, toApiError } from "@compute-api/contract";
import { type CorsHandler, isPreflight, type JsonBody } from "@compute-api/contract/http";
import { hasRequestBody, pathOf } from "@compute-api/contract/internal";
import getRawBody from "raw-body";
import { upstreamAcceptEncoding } from "./content-coding.js";
import { type ForwardOptions, forward } from "./forward.js";
import type { GatewayParts } from "./gateway-parts.js";
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

/** Returns the gateway's handler of a request: every request but those of its own endpoints. */
export function createHandle(parts: GatewayParts): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { mode, contract, logger, metrics, status, tracing, upstream, maxBodyBytes, readBody, log, cors } = parts;
  const { isSpecRoute, respond } = parts;

  /** Forwards a request and resolves with what came back; a fault is answered with its status (502, 503, 504). */
  async function exchange(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    operationId: string | undefined,
    options?: ForwardOptions,
  ): Promise<UpstreamResponse | undefined> {
    try {
      return await forward(upstream, req, res, id, options);
    } catch (error) {
      const fault = toApiError(error);
      const cause = (error as { cause?: unknown }).cause ?? error;
      logger.error(
        { reqId: id, operationId, err: cause },
        `upstream request failed: ${tlsProblem(cause) ?? fault.message}`,
      );
      tracing?.answered(res, fault);
      sendError(res, fault);
      return undefined;
    }
  }

  /** Answers a request the gateway refuses itself, counted as a request violation. */
  function refuse(res: ServerResponse, error: ApiError, operationId: string | undefined): void {
    if (error.status < 500) metrics.violations.inc({ direction: "request", operation_id: operationId ?? "none" });
    tracing?.answered(res, error);
    sendError(res, error);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    // 1. The gateway's own endpoints: neither logged nor counted, never forwarded.
    const own = parts.ownEndpoint(req);
    if (own) return own(res);
    // 2. One log line per request, with its x-request-id (propagated or new), and every answer counted.
    const record = log(req, res);
    // What an answered request is counted as when no operation was found: forwarded unvalidated, or refused.
    let unvalidated: "preflight" | "unknown" | undefined;
    res.once("close", () => {
      const operationId = record.operationId ?? unvalidated ?? "none";
      metrics.requests.inc({
        operation_id: operationId,
        status: res.writableFinished ? status(res.statusCode) : "aborted",
      });
    });
    // The stub's admin API (/__stub/…) changes a backend's whole state: never forwarded, whatever the flags.
    if (isStubAdminTarget(req.url ?? "/")) return refuse(res, stubAdminRefused(), undefined);
    // 3. CORS: with --cors-origins the gateway answers preflights and sets the headers; without, the backend owns
    //    its CORS policy and preflights go to it unvalidated.
    if (cors && runCors(cors, req, res)) return;
    // 4. Unvalidated: preflights the backend answers, and with --passthrough-unknown what the spec does not describe.
    //    Their target is the one the backend will see (origin-form, no dot segments), so that a target it would
    //    resolve to a spec path is checked as one; their body is read whole, within the limit, before an upstream
    //    connection is taken.
    const preflight = !cors && isPreflight(req);
    if (preflight || isSpecRoute) {
      const target = normalizeTarget(req.url ?? "/");
      if (target instanceof ApiError) return refuse(res, target, undefined);
      req.url = target;
    }
    unvalidated = preflight
      ? "preflight"
      : isSpecRoute && !isSpecRoute(method, pathOf(req.url ?? ""))
        ? "unknown"
        : undefined;
    if (unvalidated) {
      if (unvalidated === "unknown") metrics.passthrough.inc({ method });
      let bytes: Buffer | undefined;
      try {
        bytes = hasRequestBody(req.headers)
          ? await getRawBody(req, { limit: maxBodyBytes, ...lengthOf(req) })
          : undefined;
      } catch (error) {
        return refuse(res, toApiError(error), undefined);
      }
      const response = await exchange(req, res, record.id, undefined, { raw: bytes });
      if (response) deliver(res, response, method, false);
      return;
    }
    // 5. The request, in the stub's order: its JSON body (400, 413, 415), its operation (404, 405), then the
    //    operation's checks (401, 415, 400). The body bytes are read once, under the limit.
    let body: JsonBody;
    try {
      body = await readBody(req, res);
    } catch (error) {
      return refuse(res, toApiError(error), undefined);
    }
    const match = contract.route(method, req.url ?? "/");
    if (match instanceof ApiError) return refuse(res, match, undefined);
    const { operationId } = match.operation;
    record.operationId = operationId;
    tracing?.routed(res, operationId, match.template);
    const problem = contract.checkRequest(match, { url: req.url ?? "/", headers: req.headers, body: body.value });
    if (problem) return refuse(res, problem, operationId);
    // 6. Forward what passed, offering only the content codings the gateway can decode when it checks the response;
    //    answer with the response as the validation mode says.
    const acceptEncoding = mode === "off" ? undefined : upstreamAcceptEncoding(req.headers["accept-encoding"]);
    const response = await exchange(req, res, record.id, operationId, {
      parsed: body.bytes,
      acceptEncoding,
      operationId,
      route: match.template,
    });
    if (response) respond(res, method, record.id, operationId, response);
  };
}
