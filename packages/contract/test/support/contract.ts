/** The compiled contract of the bundled spec, and helpers to route and check requests against it. */
import { ApiError, type FieldViolation } from "../../src/api-error.js";
import { compileContract } from "../../src/compile-contract.js";

export const contract = compileContract();

export const bearer = { authorization: "Bearer k" };
export const json = { ...bearer, "content-type": "application/json" };
export const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** Routes and checks a request; the ApiError that answers it, or undefined when it conforms. */
export function check(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
): ApiError | undefined {
  const match = contract.route(method, url);
  if (match instanceof ApiError) return match;
  return contract.checkRequest(match, { url, headers, body });
}

/** The `[field, reason]` pairs of an answer's field violations. */
export const fields = (error: ApiError | undefined) =>
  (error?.toBody().details ?? [])
    .flatMap((d) => (d as { fieldViolations?: FieldViolation[] }).fieldViolations ?? [])
    .map((v) => [v.field, v.reason]);
