/**
 * What a gateway answers when its backend breaks the interface: 502 with the violations named by field path and
 * reason, never by value (a response may carry a secret).
 * @see openapi/components/responses/BadGateway.yaml
 */
import { ApiError, badRequestDetail, errorInfoDetail, type FieldViolation } from "./errors.js";

/** 502: the backend answered outside the interface; the details name each violation. */
export function upstreamContractError(violations: FieldViolation[]): ApiError {
  return new ApiError(502, "upstream response does not conform to the interface", [
    badRequestDetail(violations),
    errorInfoDetail("INVALID_UPSTREAM_RESPONSE"),
  ]);
}

/** What a gateway does with a response that breaks the spec: `enforce` (502), `report` (pass it, flagged), `off` (no check). */
export type ResponseValidationMode = "enforce" | "report" | "off";
