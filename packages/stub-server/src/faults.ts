/**
 * Faults the stub injects, so that client developers can test their error handling against real answers:
 *
 * - per request, from the caller, a `Prefer` header (RFC 7240, as Prism reads it): `code=503` answers that
 *   documented status, `latency=250` delays the answer;
 * - per run, from the command line: `--faults 503=1%` (seeded), `--latency 20-200`, `--drop 0.5%` (the connection
 *   is destroyed before any answer) and `--rate-limit 20/s` per API key (a token bucket);
 * - per operation, in steps: `--scenario searchResources=503x2,200` (fault-scenarios.ts).
 *
 * An injected answer is the interface's error body (with `Retry-After` and RetryInfo for 429 and 503, 1 s unless
 * `retryAfterSeconds` says otherwise), comes before the operation's handler, and so never changes state. Each is
 * named in the request's log line.
 * What each request gets is decided in fault-rules.ts, which the MSW handlers share; this is its Express adapter.
 * @see https://www.rfc-editor.org/rfc/rfc7240
 */
import { bearerToken, type OpenApiDocument } from "@compute-api/contract";
import type { RequestRecord } from "@compute-api/runtime";
import type { Request, RequestHandler, Response } from "express";
import { createFaultRules, type FaultOptions, type FaultRules } from "./fault-rules.js";
import { anyOperation, documentedStatuses } from "./fault-scenarios.js";

export {
  type FaultOptions,
  InjectedError,
  injectedError,
  maxPreferLatencyMs,
  maxPreferLength,
  parsePrefer,
} from "./fault-rules.js";

/** The record of the request's log line, kept by the stub's request log in `res.locals`. */
const recordOf = (res: Response): RequestRecord | undefined => (res.locals as { record?: RequestRecord }).record;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the stub mounts: `beforeValidation` for the run's latency, drops and faults; `afterValidation` for rate
 * limits and `Prefer`. Without `changeable`, each is undefined when the run has nothing for it to do, decided once,
 * so that a run without faults pays nothing for them per request; `changeable` (the admin API) mounts both, and
 * each then looks at the settings of the moment.
 */
export interface Faults {
  beforeValidation: RequestHandler | undefined;
  afterValidation: RequestHandler | undefined;
  /** The settings in force. */
  settings(): FaultOptions;
  /**
   * Replaces the settings, at once for the next request (with `changeable`). A new `seed` starts its sequence
   * again; the rate limit's buckets start full again when the limit changes.
   */
  set(options: FaultOptions): void;
}

/** The settings of faults, read and replaced (the admin API's `/__stub/faults`). */
export type FaultControl = Pick<Faults, "settings" | "set">;

/** How the fault middleware is made. */
export interface FaultsSetUp {
  /** Its settings may change while it runs (`set`). */
  changeable?: boolean;
  /** The faults a request gets instead of these (its test session's, sessions.ts), if any. */
  rulesOf?: (req: Request) => FaultRules | undefined;
}

/** Creates the fault middleware of a run. */
export function createFaults(initial: FaultOptions, { changeable = false, rulesOf }: FaultsSetUp = {}): Faults {
  const own = createFaultRules(initial);
  const rulesFor = (req: Request): FaultRules => rulesOf?.(req) ?? own;

  /** The run's faults, on every request to the API: latency, a dropped connection, an injected status. */
  const beforeValidation: RequestHandler = async (req, res, nextHandler) => {
    const rules = rulesFor(req);
    if (!rules.appliesTo(req.path)) return nextHandler();
    const record = recordOf(res);
    const delay = rules.latency();
    if (delay !== undefined) {
      if (record) record.fields.latencyMs = delay;
      await sleep(delay);
    }
    const fault = rules.runFault();
    if (fault && record) record.fields.fault = fault.name;
    if (fault?.error) return nextHandler(fault.error);
    if (fault) return void req.socket.destroy();
    nextHandler();
  };

  /**
   * Per API key and per request, once the key is known and the request valid: the operation's scenario, the rate
   * limit, then `Prefer`.
   */
  const limitAndPrefer: RequestHandler = async (req, res, nextHandler) => {
    const rules = rulesFor(req);
    const record = recordOf(res);
    const operation = (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema;
    const step = operation?.operationId === undefined ? undefined : rules.scenario(operation.operationId);
    if (step && record) record.fields.fault = step.name;
    if (step?.error) return nextHandler(step.error);
    if (step) return void req.socket.destroy();
    const limited = rules.rateLimit(bearerToken(req));
    if (limited) {
      if (record) record.fields.fault = "rate-limit";
      return nextHandler(limited);
    }
    const prefer = rules.prefer(req.headers.prefer, () =>
      Object.keys(
        (req as Request & { openapi?: { schema?: { responses?: object } } }).openapi?.schema?.responses ?? {},
      ),
    );
    if (prefer === undefined) return nextHandler();
    if (prefer.refused) return nextHandler(prefer.refused);
    if (prefer.applied) res.setHeader("Preference-Applied", prefer.applied);
    if (prefer.delayMs !== undefined) {
      if (record) record.fields.latencyMs = prefer.delayMs + Number(record.fields.latencyMs ?? 0);
      await sleep(prefer.delayMs);
    }
    if (prefer.injected) {
      if (record) record.fields.fault = `prefer ${prefer.injected.status}`;
      return nextHandler(prefer.injected);
    }
    nextHandler();
  };

  // Without a rate limit or scenarios, only a request that sends `Prefer` (and a run that honours it) has anything to
  // do there.
  const afterValidation: RequestHandler = (req, res, nextHandler) => {
    const rules = rulesFor(req);
    return rules.options().rateLimit !== undefined ||
      rules.hasScenarios() ||
      (rules.options().prefer !== false && req.headers.prefer !== undefined)
      ? limitAndPrefer(req, res, nextHandler)
      : nextHandler();
  };
  return {
    beforeValidation: changeable || own.runsFaults() ? beforeValidation : undefined,
    afterValidation:
      changeable || initial.rateLimit !== undefined || initial.prefer !== false || own.hasScenarios()
        ? afterValidation
        : undefined,
    settings: () => structuredClone(own.options()),
    set(changed) {
      if (!changeable) throw new Error("these faults were not created changeable");
      own.set(changed);
    },
  };
}

/** The statuses every operation of the spec documents: those `--faults` may inject at any request. */
export function statusesOfEveryOperation(spec: OpenApiDocument): Set<string> {
  return new Set(documentedStatuses(spec).get(anyOperation));
}
