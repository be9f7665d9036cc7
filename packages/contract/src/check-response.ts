/**
 * Checking a response of an operation against the spec: an undocumented status, a body that is not JSON or not
 * valid JSON, and the body against the schema of its status (with Ajv's `discriminator`, so that a search result
 * is held to its own branch). What a gateway does with a response that breaks the spec is its
 * {@link ResponseValidationMode}; its 502 is the catalogue's `upstreamContractError`.
 * @see https://spec.openapis.org/oas/v3.1.0#responses-object
 */
import type { ValidateFunction } from "ajv";
import type { FieldViolation } from "./api-error.js";
import type { CompiledOperation } from "./compile-operation.js";
import { ajvErrorItems, toFieldViolations } from "./field-violations.js";
import { isJsonMediaType, mediaTypeOf } from "./media-types.js";

/** A response as the contract checks it. */
export interface ResponseParts {
  status: number;
  /** The Content-Type header, if any. */
  contentType: string | undefined;
  /** The body bytes as received (decoded from any Content-Encoding); empty when there is none. */
  body: Buffer;
  /** What made the body unreadable before it could be checked, such as a content coding that does not decode. */
  unreadable?: FieldViolation;
}

/** What a gateway does with a response that breaks the spec: `enforce` (502), `report` (pass it, flagged), `off` (no check). */
export type ResponseValidationMode = "enforce" | "report" | "off";

/** The violation of a response whose status the operation does not document. */
export function undocumentedStatus(status: number): FieldViolation {
  return {
    field: "response.status",
    description: `status ${status} is not documented for this operation`,
    reason: "undocumented-status",
  };
}

/** The response an operation documents for a status (exactly, as `5XX`, or by `default`) and its body validator. */
export function responseOf(
  op: CompiledOperation | undefined,
  status: number,
): { found: boolean; validator: ValidateFunction | undefined } {
  const responses = op?.responses;
  const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => responses?.has(k));
  return key === undefined ? { found: false, validator: undefined } : { found: true, validator: responses?.get(key) };
}

/** Checks an already parsed response body (undefined: none) against the response documented for its status. */
export function checkResponseBody(op: CompiledOperation | undefined, status: number, body: unknown): FieldViolation[] {
  const { found, validator } = responseOf(op, status);
  if (!found) return [undocumentedStatus(status)];
  if (!validator)
    return body === undefined
      ? []
      : [{ field: "response.body", description: "response should NOT have a body", reason: "body" }];
  if (body === undefined) return [{ field: "response.body", description: "response body required", reason: "body" }];
  return validator(body) ? [] : toFieldViolations(ajvErrorItems(validator.errors ?? [], "/response")).violations;
}

/** The parsed body of a response (undefined: none), or what keeps it from being read: a media type that is not JSON, malformed JSON. */
function readBody(response: ResponseParts): { body?: unknown; problem?: FieldViolation } {
  if (response.unreadable) return { problem: response.unreadable };
  if (response.body.length === 0) return {};
  const type = mediaTypeOf(response.contentType);
  if (!isJsonMediaType(type)) {
    return {
      problem: {
        field: "response.header.content-type",
        description: `must be application/json, not ${type || "absent"}`,
        reason: "content-type",
      },
    };
  }
  try {
    return { body: JSON.parse(response.body.toString("utf8")) };
  } catch {
    return { problem: { field: "response.body", description: "is not valid JSON", reason: "malformed-json" } };
  }
}

/** The violations of a response: an undocumented status, a body that is not JSON, a body against its schema. */
export function checkResponse(op: CompiledOperation | undefined, response: ResponseParts): FieldViolation[] {
  const { body, problem } = readBody(response);
  if (problem)
    return [...(responseOf(op, response.status).found ? [] : [undocumentedStatus(response.status)]), problem];
  return checkResponseBody(op, response.status, body);
}
