/**
 * Checking a routed request against its compiled operation, in express-openapi-validator's order so that the stub
 * and the gateway answer alike: 401 (no alternative of its security passes), 400 for a body sent to an operation
 * that takes none, 415, a missing required body, every parameter and body violation at once, then query
 * parameters the operation does not declare, named as sent.
 * @see https://spec.openapis.org/oas/v3.1.0#operation-object
 */
import type { IncomingHttpHeaders } from "node:http";
import type { ValidateFunction } from "ajv";
import type { ApiError, FieldViolation } from "./api-error.js";
import type { CompiledOperation, ContractOperation } from "./compile-operation.js";
import { invalidItems, invalidRequest, unauthenticated, unsupportedMediaType } from "./error-catalogue.js";
import { ajvErrorItems, toFieldViolation } from "./field-violations.js";
import { selectMediaType } from "./media-types.js";
import { parseQuery, searchOf } from "./query.js";
import type { RouteMatch } from "./routes.js";

/** A request as the contract checks it. */
export interface RequestParts {
  /** The request target as received: path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
}

/** The violation of a required request body that is absent (express-openapi-validator's words for it). */
export const missingRequestBody: FieldViolation = toFieldViolation({
  path: "/body",
  message: "must have required property 'body'",
  errorCode: "required.openapi.validation",
});

/** Whether a request carries a body: a Content-Length over 0, or any Transfer-Encoding (RFC 9112 §6.3). */
export function hasRequestBody(headers: IncomingHttpHeaders): boolean {
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}

/** The violation of a request body sent to an operation that takes none. */
export const unexpectedRequestBody: FieldViolation = {
  field: "",
  description: "this operation takes no request body",
  reason: "body",
};

/** The violation of a query parameter the operation does not declare. */
export function undeclaredQueryParameter(name: string): FieldViolation {
  return { field: name, description: `Unknown query parameter '${name}'`, reason: "invalid" };
}

/** Checks a routed request; the ApiError that refuses it (401, 415, 400), or undefined when it conforms. */
export function checkRequest(match: RouteMatch<ContractOperation>, request: RequestParts): ApiError | undefined {
  const op = match.operation as CompiledOperation;
  // 401: no alternative of the operation's security passes; the first one's problem is named.
  if (op.security) {
    const problems = op.security.map((check) => check(request.headers));
    if (!problems.includes(undefined)) return unauthenticated(problems[0]);
  }
  // 400: a body sent to an operation that takes none would be forwarded unchecked.
  if (!op.requestBody && hasRequestBody(request.headers)) return invalidRequest([unexpectedRequestBody]);
  // 415, then a missing body: the body must be of a declared media type, and present when it is required.
  let bodyValidator: ValidateFunction | undefined;
  if (op.requestBody && op.requestBody.mediaTypes.size > 0) {
    const contentType = request.headers["content-type"];
    const { found, value } = selectMediaType(op.requestBody.mediaTypes, contentType);
    if (!found && !(contentType === undefined && op.requestBody.mayBeAbsent)) return unsupportedMediaType();
    if (found && request.body === undefined && op.requestBody.required) return invalidRequest([missingRequestBody]);
    bodyValidator = value;
  }
  // 400: every parameter and body violation, parameters first.
  const query = parseQuery(searchOf(request.url), op.literalQueryNames);
  const parameterItems =
    op.parameters && !op.parameters({ query: query.values, headers: request.headers, params: match.params })
      ? ajvErrorItems(op.parameters.errors ?? [])
      : [];
  const bodyItems =
    bodyValidator && request.body !== undefined && !bodyValidator(request.body)
      ? ajvErrorItems(bodyValidator.errors ?? [], "/body")
      : [];
  // concat, never push(...items): a spread argument list overflows the stack past about 100,000 items.
  const items = parameterItems.concat(bodyItems);
  if (items.length > 0) return invalidItems(items);
  // 400: query parameters the operation does not declare, named as sent.
  const unknown = query.names.filter((name) => !op.queryNames.has(name));
  return unknown.length > 0 ? invalidRequest(unknown.map(undeclaredQueryParameter)) : undefined;
}
