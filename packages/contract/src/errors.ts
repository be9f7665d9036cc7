/**
 * The one error body of the interface (ErrorBody, google.rpc.Status) and the mapping of every failure —
 * validator errors, body-parser errors, handler errors, unexpected exceptions — onto it.
 * @see openapi/components/schemas/ErrorBody.yaml
 */

import type { components } from "@compute-api/spec/types";
import type { ErrorObject } from "ajv";

/** The error body of every failed request. */
export type ErrorBody = components["schemas"]["ErrorBody"];
/** One detail of an error body. */
export type ErrorDetail = components["schemas"]["ErrorDetail"];
/** One problem with one part of a request. */
export type FieldViolation = components["schemas"]["FieldViolation"];

const domain = "compute-api";

/** A failure with its HTTP status, message and details; handlers throw it, the error handler sends it. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The body to send: `code` mirrors the status. */
  toBody(): ErrorBody {
    return this.details.length > 0
      ? { code: this.status, message: this.message, details: this.details }
      : { code: this.status, message: this.message };
  }
}

/** A google.rpc.BadRequest detail. */
export function badRequestDetail(fieldViolations: FieldViolation[]): ErrorDetail {
  return { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations };
}

/** A google.rpc.ErrorInfo detail. */
export function errorInfoDetail(reason: string, metadata?: Record<string, string>): ErrorDetail {
  return metadata
    ? { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain, metadata }
    : { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain };
}

/** A google.rpc.RetryInfo detail. */
export function retryInfoDetail(seconds: number): ErrorDetail {
  return { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` };
}

/** Most field violations one error body lists, so that a huge invalid body cannot make a huge answer. */
export const maxFieldViolations = 100;

/**
 * 400 with one field violation per problem (the first {@link maxFieldViolations}); `count` is how many problems
 * there were when `violations` holds only the first of them.
 */
export function invalidRequest(
  violations: FieldViolation[],
  reason = "INVALID_ARGUMENT",
  count = violations.length,
): ApiError {
  const n = count;
  const message =
    n === 1
      ? `invalid request: ${violations[0]?.description}`
      : n > maxFieldViolations
        ? `request has ${n} invalid fields; the first ${maxFieldViolations} are listed`
        : `request has ${n} invalid fields`;
  return new ApiError(400, message, [
    badRequestDetail(violations.slice(0, maxFieldViolations)),
    errorInfoDetail(reason),
  ]);
}

/**
 * Turns a validator path into the `field` of a violation: `/body/volumeIds/2` → `volumeIds[2]`,
 * `/body/priceHr/value` → `priceHr.value`, `/query/query` → `query`, `/params/id` → `id`,
 * `/headers/authorization` → `header.authorization`, `/body` → `` (the body as a whole).
 */
export function fieldPath(path: string): string {
  const parts = path
    .replace(/^\.?\/?/, "")
    .split(/[/.]/)
    .filter(Boolean);
  const [where, ...rest] = parts;
  const prefix = where === "headers" ? "header." : "";
  let out = "";
  for (const part of where === "body" ||
  where === "query" ||
  where === "params" ||
  where === "headers" ||
  where === "response"
    ? rest
    : parts) {
    out += /^\d+$/.test(part) ? `[${part}]` : out === "" ? part : `.${part}`;
  }
  return where === "response" ? `response.body${out ? (out.startsWith("[") ? out : `.${out}`) : ""}` : prefix + out;
}

/** One problem as express-openapi-validator reports it; the compiled contract reports its problems in this shape too. */
export interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

/**
 * Ajv errors as express-openapi-validator turns them into items (its `augmentAjvErrors` and
 * `ajvErrorsToValidatorError`), so that both validators name a problem alike: an enum error lists the allowed
 * values, and a missing or unknown property is named at the end of the path. `prefix` goes before each path
 * (`/body`, `/response`).
 */
export function ajvErrorItems(errors: readonly ErrorObject[], prefix = ""): ValidatorErrorItem[] {
  return errors.map((e) => {
    const params = e.params as {
      allowedValues?: unknown[];
      missingProperty?: string;
      additionalProperty?: string;
      unevaluatedProperty?: string;
    };
    const message =
      e.keyword === "enum" && params.allowedValues
        ? `${e.message}: ${params.allowedValues.join(", ")}`
        : (e.message ?? "is invalid");
    const child = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
    return {
      path: `${prefix}${e.instancePath}${child === undefined ? "" : `/${child}`}`,
      message,
      errorCode: `${e.keyword}.openapi.validation`,
    };
  });
}

/**
 * Whether an item is Ajv's error for an `if` whose `then` failed (`must match "then" schema`): the `then`'s own
 * errors name the problem, and the `if`s of `boundedSchemas` are not the spec's.
 */
const isIfItem = (item: ValidatorErrorItem) => item.errorCode === "if.openapi.validation";

/**
 * The field violations of validator items, without Ajv's `if` errors: the first {@link maxFieldViolations} mapped,
 * and how many there are in all. Both validators map their errors here, so that neither maps (nor sends) more.
 */
export function toFieldViolations(items: readonly ValidatorErrorItem[]): {
  violations: FieldViolation[];
  count: number;
} {
  const violations: FieldViolation[] = [];
  let count = 0;
  for (const item of items) {
    if (isIfItem(item)) continue;
    if (count++ < maxFieldViolations) violations.push(toFieldViolation(item));
  }
  return { violations, count };
}

/** 400 for validator error items, as {@link toFieldViolations} maps them. */
export function invalidItems(items: readonly ValidatorErrorItem[]): ApiError {
  const { violations, count } = toFieldViolations(items);
  return invalidRequest(violations, undefined, count);
}

/** Shape of the errors express-openapi-validator and body-parser pass to `next(err)`. */
interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: ValidatorErrorItem[];
  headers?: Record<string, string>;
}

const isHttpLike = (e: unknown): e is HttpLikeError =>
  typeof e === "object" && e !== null && ("status" in e || "statusCode" in e);

/** Maps one validator error item onto a field violation; never repeats the offending value. */
export function toFieldViolation(item: ValidatorErrorItem): FieldViolation {
  const reason = item.errorCode?.replace(/\.openapi\.(validation|requestValidation)$/, "") ?? "invalid";
  let field = fieldPath(item.path ?? "");
  let description = item.message ?? "is invalid";
  // Ajv says which items of an array are duplicates only in its message: name the later one.
  const dup = /duplicate items \(items ## (\d+) and (\d+) are identical\)/.exec(description);
  if (dup) {
    field = `${field}[${Math.max(Number(dup[1]), Number(dup[2]))}]`;
    description = `duplicates item ${Math.min(Number(dup[1]), Number(dup[2]))}; each item may appear only once`;
  }
  // Ajv's message for `not` ("must NOT be valid") says nothing to a caller; in this spec `not` excludes values.
  if (reason === "not") description = "is not an allowed value here";
  // Ajv names an unknown property in the message; point the field at it.
  const extra = /must NOT have additional properties|Unknown query parameter/.test(description)
    ? /'([^']+)'/.exec(description)
    : null;
  if (extra && !field.endsWith(extra[1] ?? "")) field = field ? `${field}.${extra[1]}` : (extra[1] ?? "");
  // The last step of a missing or unknown property is a property name, even when it is made of digits.
  if (reason === "required" || reason === "additionalProperties")
    field = field.replace(/\[(\d+)\]$/, (_m, name: string, at: number) => (at === 0 ? name : `.${name}`));
  return { field, description, reason };
}

const statusMessages: Record<number, string> = {
  401: "missing or invalid API key",
  404: "not found",
  405: "method not allowed",
  413: "request body is larger than the limit",
  415: "request body must be application/json",
};

/** Maps anything thrown or passed to `next(err)` onto an ApiError. Unknown errors become a bare 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (!isHttpLike(error)) return new ApiError(500, "internal error");
  const status = error.status ?? error.statusCode ?? 500;
  // body-parser: malformed JSON and bodies over the limit. Its messages may quote the body, so they are not used.
  if (error.type === "entity.parse.failed") {
    return invalidRequest([{ field: "", description: "body is not valid JSON", reason: "malformed-json" }]);
  }
  if (error.type === "entity.too.large") return new ApiError(413, "request body is larger than the limit");
  if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") {
    return new ApiError(415, "unsupported body encoding or charset; send UTF-8 application/json");
  }
  if (typeof error.type === "string" && status < 500) return new ApiError(400, "request body cannot be read");
  // express-openapi-validator: a path segment that does not decode (`%FF`, `%E0%A4`). Its error carries the raw
  // path as if it were a field, so the path is named here instead.
  if (status === 400 && /^malformed uri/.test(error.message ?? "")) {
    return new ApiError(400, "the request path is not valid percent-encoded UTF-8", [errorInfoDetail("MALFORMED_URI")]);
  }
  if (status === 400) return invalidItems(error.errors ?? [{ message: error.message ?? "invalid request" }]);
  if (status >= 500) {
    const { violations } = toFieldViolations(error.errors ?? []);
    return new ApiError(500, "internal error", violations.length > 0 ? [badRequestDetail(violations)] : []);
  }
  const headers = error.headers?.Allow ? { Allow: error.headers.Allow } : undefined;
  // The validator's own messages name the rule ("Authorization header required") and never carry a header value.
  const message = (status === 415 ? statusMessages[415] : error.message) || statusMessages[status] || "error";
  const reason = {
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
  }[status];
  return new ApiError(status, message ?? "error", reason ? [errorInfoDetail(reason)] : [], headers ?? {});
}
