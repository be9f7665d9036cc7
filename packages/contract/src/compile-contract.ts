/**
 * The compiled contract: everything the spec says about a request and a response, compiled once at start-up into
 * plain functions, with no web framework. A route table finds the operation; per operation, Ajv (JSON Schema
 * 2020-12) validators check its path and query parameters, the bearer form of `Authorization`, the media type
 * and JSON schema of its request body, and the JSON body of every documented response status.
 *
 * The stub server validates with express-openapi-validator and the gateway with this contract, so this contract
 * follows the validator's order and names problems alike (one mapper, `toApiError`): 404/405 and malformed paths,
 * then 401, then 415, then a missing body, then every parameter and body violation, then undeclared query
 * parameters. Response bodies are checked with Ajv's `discriminator`, so a search result is held to its own
 * branch of `SearchResult` only.
 * @see https://spec.openapis.org/oas/v3.1.0#operation-object
 */
import type { IncomingHttpHeaders } from "node:http";
import type { ValidateFunction } from "ajv";
import { bearerToken } from "./bearer.js";
import { boundedSchemas } from "./bounded-schemas.js";
import {
  type ApiError,
  ajvErrorItems,
  type FieldViolation,
  invalidItems,
  invalidRequest,
  toApiError,
  toFieldViolation,
  toFieldViolations,
} from "./errors.js";
import { parseQuery, searchOf } from "./query.js";
import { createRouteTable, type RouteMatch } from "./routes.js";
import { createAjv } from "./schema-validator.js";
import { deref, loadSpec, type OpenApiDocument, specOperations } from "./spec.js";

/** A request as the contract checks it. */
export interface RequestParts {
  /** The request target as received: path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
}

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

/** One operation of the spec, compiled. */
export interface ContractOperation {
  operationId: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The path template, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  path: string;
  /** The statuses the operation documents (`200`, `4XX`, `default`, …), as the spec writes them. */
  statuses: readonly string[];
}

/** The compiled contract of a spec. */
export interface Contract {
  spec: OpenApiDocument;
  operations: readonly ContractOperation[];
  /** The operation a request is for and its path parameters, or the ApiError that answers it (404, 405, 400). */
  route(method: string, url: string): RouteMatch<ContractOperation> | ApiError;
  /** Checks a routed request; the ApiError that refuses it (401, 415, 400), or undefined when it conforms. */
  checkRequest(match: RouteMatch<ContractOperation>, request: RequestParts): ApiError | undefined;
  /** The violations of a response of an operation: an undocumented status, a body that is not JSON, a body against its schema. */
  checkResponse(operationId: string, response: ResponseParts): FieldViolation[];
  /** Checks an already parsed response body (undefined: none) against the response documented for its status. */
  checkResponseBody(operationId: string, status: number, body: unknown): FieldViolation[];
  /** Whether the operation documents the status (exactly, as `5XX`, or by `default`). */
  documented(operationId: string, status: number): boolean;
}

/** Options of the compiled contract. */
export interface ContractOptions {
  /** The bundled document; default the one `loadSpec()` reads. */
  spec?: OpenApiDocument;
}

type Schema = { $ref?: string } & Record<string, unknown>;
type MediaTypes = Record<string, { schema?: Schema }>;
type RequestBody = { $ref?: string; required?: boolean; content?: MediaTypes };
type ResponseObject = { $ref?: string; content?: MediaTypes };
type SecurityRequirement = Record<string, string[]>;
type SecurityScheme = { type?: string; scheme?: string; in?: string; name?: string };

/** One way to pass a security requirement: each of its schemes checked, the first problem named. */
type SecurityCheck = (headers: IncomingHttpHeaders) => string | undefined;

/** What a request of one operation is checked against. */
interface CompiledOperation extends ContractOperation {
  /** Undefined when the operation is not secured; otherwise one check per alternative requirement. */
  security: SecurityCheck[] | undefined;
  /** Query parameter names with a literal `[`, which bracket notation leaves alone. */
  literalQueryNames: ReadonlySet<string>;
  queryNames: ReadonlySet<string>;
  /** Validates `{ query, headers, params }` (the sections the operation has), or undefined without parameters. */
  parameters: ValidateFunction | undefined;
  /**
   * `mayBeAbsent`: the spec says `required: false`, so a request without Content-Type is not refused 415.
   * `mediaTypes` is keyed by `mediaTypeOf` of the declared type (the first declaration of a type wins).
   */
  requestBody:
    | { required: boolean; mayBeAbsent: boolean; mediaTypes: Map<string, ValidateFunction | undefined> }
    | undefined;
  /** Response status key → the body validator (undefined: the response has no JSON body). */
  responses: Map<string, ValidateFunction | undefined>;
}

/** One step of a JSON pointer inside a `$ref` URI fragment. */
const pointerStep = (s: string) => encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1"));

/** The media type of a Content-Type value: lower case, without parameters; undefined when there is none. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  return contentType.split(";")[0]?.toLowerCase().trim();
}

/** Whether a media type is JSON (`application/json` or any `+json` type). */
export const isJsonMediaType = (type: string | undefined): boolean =>
  type === "application/json" || (type?.endsWith("+json") ?? false);

/**
 * The schema of a declared media type (keyed by `mediaTypeOf`) that matches the request's: exactly, then `type/*`,
 * then `*\/*`.
 */
function selectMediaType<T>(
  declared: Map<string, T>,
  contentType: string | undefined,
): { found: boolean; value: T | undefined } {
  const type = mediaTypeOf(contentType);
  if (type !== undefined) {
    if (declared.has(type)) return { found: true, value: declared.get(type) };
    for (const key of [...declared.keys()].sort().reverse()) {
      if (key === "*/*" || (/^[a-z]+\/\*$/.test(key) && type.startsWith(key.slice(0, -1))))
        return { found: true, value: declared.get(key) };
    }
  }
  return { found: false, value: undefined };
}

/** The check of one security requirement (all its schemes), with the messages express-openapi-validator gives. */
function securityCheck(
  requirement: SecurityRequirement,
  schemes: Record<string, SecurityScheme>,
  where: string,
): SecurityCheck {
  const checks = Object.keys(requirement).map((name): SecurityCheck => {
    const scheme = schemes[name];
    if (scheme?.type === "http" && scheme.scheme?.toLowerCase() === "bearer") {
      return (headers) => {
        const header = headers.authorization;
        if (!header) return "Authorization header required";
        if (!header.toLowerCase().includes("bearer")) return "Authorization header with scheme 'Bearer' required";
        return bearerToken({ headers }) === undefined ? "Authorization header must be `Bearer <API key>`" : undefined;
      };
    }
    if (scheme?.type === "apiKey" && scheme.in === "header" && scheme.name) {
      const header = scheme.name.toLowerCase();
      return (headers) => (headers[header] ? undefined : `'${scheme.name}' header required`);
    }
    throw new Error(
      `${where}: the security scheme '${name}' is not supported by the compiled contract (http bearer and apiKey in a header are)`,
    );
  });
  return (headers) => {
    for (const check of checks) {
      const problem = check(headers);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

/** Compiles the contract of the spec; throws, naming the place, when a part of it cannot be compiled. */
export function compileContract(options: ContractOptions = {}): Contract {
  const spec = options.spec ?? loadSpec();
  // As the stub's validator: parameters are coerced to their declared types, bodies are not; responses use the
  // discriminator. All check the bounded copy of the document, as the stub's validator does.
  const bounded = boundedSchemas(spec);
  const parameterAjv = createAjv(bounded, { coerceTypes: true });
  const bodyAjv = createAjv(bounded);
  const responseAjv = createAjv(bounded, { discriminator: true });
  const schemes = (spec.components.securitySchemes ?? {}) as Record<string, SecurityScheme>;
  const topSecurity = spec.security as SecurityRequirement[] | undefined;

  const compile = (ajv: typeof bodyAjv, schema: object, where: string): ValidateFunction => {
    try {
      return ajv.compile(schema);
    } catch (error) {
      throw new Error(`${where}: the schema does not compile: ${(error as Error).message}`);
    }
  };
  const refTo = (pointer: string) => ({ $ref: `openapi.json#${pointer}` });

  const operations: CompiledOperation[] = specOperations(spec).map(({ path, method, operation, parameters }) => {
    const where = `${method.toUpperCase()} ${path}`;
    const op = operation as {
      operationId?: string;
      security?: SecurityRequirement[];
      requestBody?: RequestBody;
      responses?: Record<string, ResponseObject>;
    };
    if (!op.operationId) throw new Error(`${where}: the operation has no operationId`);
    const operationPointer = `/paths/${pointerStep(path)}/${method}`;

    // Parameters, in the sections express-openapi-validator validates (cookies are never read there, so neither here).
    const sections: Record<string, { type: "object"; properties: Record<string, object>; required: string[] }> = {};
    // Where each parameter is written (its $ref target, or its place in the path item or operation), so that its
    // schema is compiled in place and its own $refs resolve.
    const pathPointer = `/paths/${pointerStep(path)}`;
    const written = [
      ...((spec.paths[path]?.parameters as Schema[] | undefined) ?? []).map(
        (p, j) => p.$ref?.replace(/^#/, "") ?? `${pathPointer}/parameters/${j}`,
      ),
      ...((operation.parameters as Schema[] | undefined) ?? []).map(
        (p, j) => p.$ref?.replace(/^#/, "") ?? `${pathPointer}/${method}/parameters/${j}`,
      ),
    ];
    parameters.forEach((parameter, i) => {
      const p = parameter as { name: string; in: string; required?: boolean };
      const section =
        p.in === "query" ? "query" : p.in === "header" ? "headers" : p.in === "path" ? "params" : undefined;
      if (!section) return;
      const name = section === "headers" ? p.name.toLowerCase() : p.name;
      sections[section] ??= { type: "object", properties: {}, required: [] };
      const target = sections[section];
      target.properties[name] = refTo(`${written[i]}/schema`);
      if (p.required) target.required.push(name);
    });
    const ordered = Object.fromEntries(
      ["query", "headers", "params"].filter((s) => sections[s]).map((s) => [s, sections[s]!]),
    );
    const parameterValidator =
      Object.keys(ordered).length > 0
        ? compile(parameterAjv, { type: "object", properties: ordered }, `${where} parameters`)
        : undefined;

    let requestBody: CompiledOperation["requestBody"];
    if (op.requestBody) {
      const body = deref(spec, op.requestBody);
      const mediaTypes = new Map<string, ValidateFunction | undefined>();
      const bodyPointer = op.requestBody.$ref
        ? op.requestBody.$ref.replace(/^#/, "")
        : `${operationPointer}/requestBody`;
      for (const [type, media] of Object.entries(body.content ?? {})) {
        if (!isJsonMediaType(mediaTypeOf(type)) && type !== "*/*") {
          throw new Error(
            `${where}: the request body media type ${type} is not JSON; the compiled contract validates JSON bodies only`,
          );
        }
        const validator = media.schema
          ? compile(bodyAjv, refTo(`${bodyPointer}/content/${pointerStep(type)}/schema`), `${where} request body`)
          : undefined;
        const key = mediaTypeOf(type) ?? type;
        if (!mediaTypes.has(key)) mediaTypes.set(key, validator);
      }
      requestBody = { required: body.required === true, mayBeAbsent: body.required === false, mediaTypes };
    }

    const responses = new Map<string, ValidateFunction | undefined>();
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      const resolved = deref(spec, response);
      const responsePointer = response.$ref
        ? response.$ref.replace(/^#/, "")
        : `${operationPointer}/responses/${pointerStep(status)}`;
      const json = Object.keys(resolved.content ?? {}).find((type) => isJsonMediaType(mediaTypeOf(type)));
      const schema = json ? resolved.content?.[json]?.schema : undefined;
      responses.set(
        status,
        json && schema
          ? compile(
              responseAjv,
              refTo(`${responsePointer}/content/${pointerStep(json)}/schema`),
              `${where} response ${status}`,
            )
          : undefined,
      );
    }

    const security = op.security ?? topSecurity;
    const queryParameters = parameters.filter((p) => p.in === "query").map((p) => p.name);
    return {
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      statuses: [...responses.keys()],
      security:
        security && security.length > 0
          ? security.map((requirement) => securityCheck(requirement, schemes, where))
          : undefined,
      literalQueryNames: new Set(queryParameters.filter((name) => name.includes("["))),
      queryNames: new Set(queryParameters),
      parameters: parameterValidator,
      requestBody,
      responses,
    };
  });

  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const table = createRouteTable(operations.map((op) => ({ method: op.method, template: op.path, operation: op })));

  const checkRequest = (match: RouteMatch<ContractOperation>, request: RequestParts): ApiError | undefined => {
    const op = match.operation as CompiledOperation;
    // 401: no alternative of the operation's security passes; the first one's problem is named.
    if (op.security) {
      const problems = op.security.map((check) => check(request.headers));
      if (!problems.includes(undefined)) return toApiError({ status: 401, message: problems[0] });
    }
    // 400: a body sent to an operation that takes none would be forwarded unchecked.
    if (!op.requestBody && hasRequestBody(request.headers)) return invalidRequest([unexpectedRequestBody]);
    // 415, then a missing body: the body must be of a declared media type, and present when it is required.
    let bodyValidator: ValidateFunction | undefined;
    if (op.requestBody && op.requestBody.mediaTypes.size > 0) {
      const contentType = request.headers["content-type"];
      const { found, value } = selectMediaType(op.requestBody.mediaTypes, contentType);
      if (!found && !(contentType === undefined && op.requestBody.mayBeAbsent)) {
        return toApiError({
          status: 415,
          message:
            contentType === undefined
              ? "media type not specified"
              : `unsupported media type ${mediaTypeOf(contentType)}`,
        });
      }
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
  };

  const responseOf = (
    operationId: string,
    status: number,
  ): { found: boolean; validator: ValidateFunction | undefined } => {
    const responses = byId.get(operationId)?.responses;
    const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => responses?.has(k));
    return key === undefined ? { found: false, validator: undefined } : { found: true, validator: responses?.get(key) };
  };

  const checkResponseBody = (operationId: string, status: number, body: unknown): FieldViolation[] => {
    const { found, validator } = responseOf(operationId, status);
    if (!found) return [undocumentedStatus(status)];
    if (!validator)
      return body === undefined
        ? []
        : [{ field: "response.body", description: "response should NOT have a body", reason: "body" }];
    if (body === undefined) return [{ field: "response.body", description: "response body required", reason: "body" }];
    return validator(body) ? [] : toFieldViolations(ajvErrorItems(validator.errors ?? [], "/response")).violations;
  };

  /** The parsed body of a response (undefined: none), or what keeps it from being read: a media type that is not JSON, malformed JSON. */
  const readBody = (response: ResponseParts): { body?: unknown; problem?: FieldViolation } => {
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
  };

  const checkResponse = (operationId: string, response: ResponseParts): FieldViolation[] => {
    const { body, problem } = readBody(response);
    if (problem)
      return [
        ...(responseOf(operationId, response.status).found ? [] : [undocumentedStatus(response.status)]),
        problem,
      ];
    return checkResponseBody(operationId, response.status, body);
  };

  return {
    spec,
    operations,
    route: (method, url) => table.route(method, url),
    checkRequest,
    checkResponse,
    checkResponseBody,
    documented: (operationId, status) => responseOf(operationId, status).found,
  };
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

/** The violation of a response whose status the operation does not document. */
export function undocumentedStatus(status: number): FieldViolation {
  return {
    field: "response.status",
    description: `status ${status} is not documented for this operation`,
    reason: "undocumented-status",
  };
}
