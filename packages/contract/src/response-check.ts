/**
 * What a gateway needs, beyond express-openapi-validator, to hold a backend's responses to the spec: readable
 * violations from the validator's response errors, the 502 that replaces a non-conforming response, and a check
 * of the responses the validator never looks at (express-openapi-validator skips every 5xx body).
 * @see openapi/components/responses/BadGateway.yaml
 */
import type { ErrorObject } from "ajv";
import { ApiError, badRequestDetail, errorInfoDetail, toFieldViolation, type FieldViolation } from "./errors.js";
import { createSchemaValidator } from "./schema-validator.js";
import { deref, loadSpec, specOperations, type OpenApiDocument } from "./spec.js";

/** The violation of a response whose status the operation does not document. */
export function undocumentedStatus(status: number): FieldViolation {
  return { field: "response.status", description: `status ${status} is not documented for this operation`, reason: "undocumented-status" };
}

/**
 * The violations in a response-validation error of express-openapi-validator (its InternalServerError with
 * `errors[]`), by field path and reason, never with the offending values.
 */
export function responseViolations(error: unknown): FieldViolation[] {
  const items = (error as { errors?: { path?: string; message?: string; errorCode?: string }[] } | null)?.errors ?? [];
  return items.map((item) => {
    const status = /no schema defined for status code '(\d+)'/.exec(item.message ?? "");
    if (status) return undocumentedStatus(Number(status[1]));
    // The validator's own checks ("response body required.") carry no error code.
    if (/^[./]response\b/.test(item.path ?? "")) return toFieldViolation(item.errorCode ? item : { ...item, errorCode: "body" });
    return { field: "response", description: item.message ?? "is invalid", reason: "invalid" };
  });
}

/** 502: the backend answered outside the interface; the details name each violation. */
export function upstreamContractError(violations: FieldViolation[]): ApiError {
  return new ApiError(502, "upstream response does not conform to the interface", [
    badRequestDetail(violations),
    errorInfoDetail("INVALID_UPSTREAM_RESPONSE"),
  ]);
}

/** Checks a parsed response body (undefined: no body) of an operation against the response documented for its status. */
export interface ResponseCheck {
  (operationId: string, status: number, body: unknown): FieldViolation[];
  /** Whether the operation documents the status (exactly, as `5XX`, or by `default`). */
  documented(operationId: string, status: number): boolean;
}

type ResponseObject = { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> };
type Operation = { operationId?: string; responses?: Record<string, ResponseObject> };

const escapePointer = (s: string) => encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1"));

/** Creates a ResponseCheck over the document with the contract's Ajv (same formats as the validator). */
export function createResponseCheck(spec: OpenApiDocument = loadSpec()): ResponseCheck {
  const schemas = createSchemaValidator(spec);
  const operations = new Map<string, { pointer: string; responses: Record<string, ResponseObject> }>();
  for (const { path, method, operation } of specOperations(spec)) {
    const { operationId, responses } = operation as Operation;
    if (operationId && responses) operations.set(operationId, { pointer: `#/paths/${escapePointer(path)}/${method}/responses`, responses });
  }
  const resolve = (pointer: string, response: ResponseObject): { pointer: string; response: ResponseObject } => {
    if (!response.$ref) return { pointer, response };
    return { pointer: response.$ref, response: deref(spec, response) };
  };
  const find = (operationId: string, status: number): { pointer: string; response: ResponseObject } | undefined => {
    const op = operations.get(operationId);
    const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => op?.responses[k]);
    const response = key ? op?.responses[key] : undefined;
    return op && key && response ? resolve(`${op.pointer}/${key}`, response) : undefined;
  };
  /** Where the JSON schema of a response is, or undefined when the response has no JSON body. */
  const schemaPointer = ({ pointer, response }: { pointer: string; response: ResponseObject }) => {
    const schema = response.content?.["application/json"]?.schema;
    return schema ? (schema.$ref ?? `${pointer}/content/application~1json/schema`) : undefined;
  };
  const check = (operationId: string, status: number, body: unknown): FieldViolation[] => {
    const found = find(operationId, status);
    if (!found) return [undocumentedStatus(status)];
    const pointer = schemaPointer(found);
    if (!pointer) return body === undefined ? [] : [{ field: "response.body", description: "response should NOT have a body", reason: "body" }];
    if (body === undefined) return [{ field: "response.body", description: "response body required", reason: "body" }];
    return schemas.validate(pointer, body).map(ajvViolation);
  };
  // Compile every response schema now, so that a spec Ajv cannot compile fails at start-up, not on a response.
  for (const { pointer, responses } of operations.values()) {
    for (const [key, response] of Object.entries(responses)) {
      const found = schemaPointer(resolve(`${pointer}/${key}`, response));
      if (found) schemas.compile(found);
    }
  }
  return Object.assign(check, { documented: (operationId: string, status: number) => find(operationId, status) !== undefined });
}

/** An Ajv error as a violation of the response body, with the path express-openapi-validator would give it. */
function ajvViolation(error: ErrorObject): FieldViolation {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const child = params.missingProperty ?? params.additionalProperty;
  return toFieldViolation({
    path: `/response${error.instancePath}${child ? `/${child}` : ""}`,
    message: error.message ?? "is invalid",
    errorCode: `${error.keyword}.openapi.validation`,
  });
}
