/**
 * Compiling one operation of the spec, once, at start-up: Ajv (JSON Schema 2020-12) validators of its path,
 * query and header parameters, of each JSON media type of its request body and of the JSON body of each
 * documented response, and the checks of its security requirements. Each schema is compiled where the document
 * writes it, so that its own `$ref`s resolve. A part that cannot be compiled throws, naming its place.
 * @see https://spec.openapis.org/oas/v3.1.0#operation-object
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { boundedSchemas } from "./bounded-schemas.js";
import { deref, pointerToken } from "./json-pointer.js";
import { isJsonMediaType, mediaTypeOf } from "./media-types.js";
import { createAjv } from "./schema-validator.js";
import {
  type SecurityCheck,
  type SecurityRequirement,
  type SecurityScheme,
  securityCheck,
} from "./security-schemes.js";
import type { OpenApiDocument, SpecOperation } from "./spec.js";

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

/** What a request and a response of one operation are checked against. */
export interface CompiledOperation extends ContractOperation {
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

type Schema = { $ref?: string } & Record<string, unknown>;
type MediaTypes = Record<string, { schema?: Schema }>;
type RequestBody = { $ref?: string; required?: boolean; content?: MediaTypes };
type ResponseObject = { $ref?: string; content?: MediaTypes };

/** One step of a JSON pointer inside a `$ref` URI fragment. */
const pointerStep = (s: string) => encodeURIComponent(pointerToken(s));
const refTo = (pointer: string) => ({ $ref: `openapi.json#${pointer}` });
/** Where a part is written: the target of its `$ref`, or its own place. */
const placeOf = (part: { $ref?: string }, place: string) => part.$ref?.replace(/^#/, "") ?? place;

function compile(ajv: Ajv2020, schema: object, where: string): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new Error(`${where}: the schema does not compile: ${(error as Error).message}`);
  }
}

/** Where an operation is written: its method and path for errors, and the JSON pointers of its path item and itself. */
interface Place {
  where: string;
  pathPointer: string;
  operationPointer: string;
}

/** Returns the compiler of the operations of a spec (its Ajv instances are made once and shared). */
export function operationCompiler(spec: OpenApiDocument): (operation: SpecOperation) => CompiledOperation {
  // As the stub's validator: parameters are coerced to their declared types, bodies are not; responses use the
  // discriminator. All check the bounded copy of the document, as the stub's validator does.
  const bounded = boundedSchemas(spec);
  const parameterAjv = createAjv(bounded, { coerceTypes: true });
  const bodyAjv = createAjv(bounded);
  const responseAjv = createAjv(bounded, { discriminator: true });
  const schemes = (spec.components.securitySchemes ?? {}) as Record<string, SecurityScheme>;
  const topSecurity = spec.security as SecurityRequirement[] | undefined;

  return (specOperation) => {
    const { path, method, operation, parameters } = specOperation;
    const where = `${method.toUpperCase()} ${path}`;
    const op = operation as {
      operationId?: string;
      security?: SecurityRequirement[];
      requestBody?: RequestBody;
      responses?: Record<string, ResponseObject>;
    };
    if (!op.operationId) throw new Error(`${where}: the operation has no operationId`);
    const pathPointer = `/paths/${pointerStep(path)}`;
    const place: Place = { where, pathPointer, operationPointer: `${pathPointer}/${method}` };
    const parameterValidator = compileParameters(parameterAjv, spec, place, specOperation);
    const requestBody = op.requestBody ? compileRequestBody(bodyAjv, spec, place, op.requestBody) : undefined;
    const responses = compileResponses(responseAjv, spec, place, op.responses ?? {});
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
  };
}

/**
 * The validator of an operation's parameters, in the sections express-openapi-validator validates (`query`,
 * `headers`, `params`; cookies are never read there, so neither here), each schema referenced where the document
 * writes it; undefined without parameters.
 */
function compileParameters(
  ajv: Ajv2020,
  spec: OpenApiDocument,
  { where, pathPointer, operationPointer }: Place,
  { path, operation, parameters }: SpecOperation,
): ValidateFunction | undefined {
  const sections: Record<string, { type: "object"; properties: Record<string, object>; required: string[] }> = {};
  const written = [
    ...((spec.paths[path]?.parameters as Schema[] | undefined) ?? []).map((p, j) =>
      placeOf(p, `${pathPointer}/parameters/${j}`),
    ),
    ...((operation.parameters as Schema[] | undefined) ?? []).map((p, j) =>
      placeOf(p, `${operationPointer}/parameters/${j}`),
    ),
  ];
  parameters.forEach((parameter, i) => {
    const p = parameter as { name: string; in: string; required?: boolean };
    const section = p.in === "query" ? "query" : p.in === "header" ? "headers" : p.in === "path" ? "params" : undefined;
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
  return Object.keys(ordered).length > 0
    ? compile(ajv, { type: "object", properties: ordered }, `${where} parameters`)
    : undefined;
}

/** The validators of a request body, one per JSON media type (the first declaration of a type wins). */
function compileRequestBody(
  ajv: Ajv2020,
  spec: OpenApiDocument,
  { where, operationPointer }: Place,
  requestBody: RequestBody,
): NonNullable<CompiledOperation["requestBody"]> {
  const body = deref(spec, requestBody);
  const mediaTypes = new Map<string, ValidateFunction | undefined>();
  const bodyPointer = placeOf(requestBody, `${operationPointer}/requestBody`);
  for (const [type, media] of Object.entries(body.content ?? {})) {
    if (!isJsonMediaType(mediaTypeOf(type)) && type !== "*/*") {
      throw new Error(
        `${where}: the request body media type ${type} is not JSON; the compiled contract validates JSON bodies only`,
      );
    }
    const validator = media.schema
      ? compile(ajv, refTo(`${bodyPointer}/content/${pointerStep(type)}/schema`), `${where} request body`)
      : undefined;
    const key = mediaTypeOf(type) ?? type;
    if (!mediaTypes.has(key)) mediaTypes.set(key, validator);
  }
  return { required: body.required === true, mayBeAbsent: body.required === false, mediaTypes };
}

/** The validator of each documented response's JSON body, by status key (undefined: no JSON body). */
function compileResponses(
  ajv: Ajv2020,
  spec: OpenApiDocument,
  { where, operationPointer }: Place,
  responses: Record<string, ResponseObject>,
): Map<string, ValidateFunction | undefined> {
  const validators = new Map<string, ValidateFunction | undefined>();
  for (const [status, response] of Object.entries(responses)) {
    const resolved = deref(spec, response);
    const responsePointer = placeOf(response, `${operationPointer}/responses/${pointerStep(status)}`);
    const json = Object.keys(resolved.content ?? {}).find((type) => isJsonMediaType(mediaTypeOf(type)));
    const schema = json ? resolved.content?.[json]?.schema : undefined;
    validators.set(
      status,
      json && schema
        ? compile(ajv, refTo(`${responsePointer}/content/${pointerStep(json)}/schema`), `${where} response ${status}`)
        : undefined,
    );
  }
  return validators;
}
