/**
 * The implementer's `authenticate`, as the validator's security handler calls it. express-openapi-validator
 * answers whatever a security handler throws with `status ?? 401` and its message, so a database outage would
 * tell every caller its key is invalid (and show the driver's message): what `authenticate` throws is kept here,
 * per request, and the error handler answers that instead. An ApiError is answered as it is, headers included;
 * anything else is a failure of a dependency, a 503 with `Retry-After`, its cause logged and never sent.
 */
import { ApiError, dependencyUnavailable, unauthenticated } from "@compute-api/contract";
import type { Request } from "express";
import type { Authenticate as ValidatorAuthenticate } from "./contract-validator.js";
import type { Principals } from "./principals.js";
import { signalOf } from "./request-deadline.js";

/**
 * Resolves who a bearer token acts for: an object (the principal), or `undefined`, `null` or `false` to answer
 * 401. It is given the token (never log it), the request, and the request's signal, which fires at the handler
 * timeout or when the client goes away. Throw an `ApiError` to answer it as it is (a 429 with `Retry-After`);
 * anything else thrown (a database that does not answer) is answered 503 with `Retry-After`, never 401.
 */
export type Authenticate<Principal> = (
  token: string,
  request: Request,
  signal: AbortSignal,
) => Principal | undefined | null | false | Promise<Principal | undefined | null | false>;

const failures = new WeakMap<Request, ApiError>();

/** The answer to a request whose `authenticate` threw, if it did. */
export function authenticationFailureOf(req: Request): ApiError | undefined {
  return failures.get(req);
}

/** Whether `authenticate` gave a principal: an object; anything else refuses the key. */
const isPrincipal = (value: unknown): boolean =>
  (typeof value === "object" && value !== null) || typeof value === "function";

/** The security handler's check of a well-formed token: who it acts for, recorded in `principals`. */
export function authenticator<Principal>(
  authenticate: Authenticate<Principal>,
  principals: Principals<Principal>,
): ValidatorAuthenticate {
  return async (token, req) => {
    let principal: unknown;
    try {
      principal = await authenticate(token, req, signalOf(req));
    } catch (error) {
      const answer = error instanceof ApiError ? error : Object.assign(dependencyUnavailable(), { cause: error });
      failures.set(req, answer);
      throw answer;
    }
    if (!isPrincipal(principal)) throw unauthenticated("the API key is not valid");
    principals.set(req, principal as Principal);
    return true;
  };
}
