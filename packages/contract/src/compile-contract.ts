/**
 * The compiled contract: everything the spec says about a request and a response, compiled once at start-up into
 * plain functions, with no web framework. A route table finds the operation (`routes.ts`); each operation is
 * compiled once (`compile-operation.ts`); a request is checked in express-openapi-validator's order
 * (`check-request.ts`) and a response against the schema of its status (`check-response.ts`).
 *
 * Servers of @compute-api/server (the stub, the Postgres example) validate with express-openapi-validator and the
 * gateway with this contract; both name problems with the catalogue (`error-catalogue.ts`) and one mapper, and a
 * differential test keeps them alike.
 * @see https://spec.openapis.org/oas/v3.1.0#operation-object
 */
import type { ApiError, FieldViolation } from "./api-error.js";
import { checkRequest, type RequestParts } from "./check-request.js";
import { checkResponse, checkResponseBody, type ResponseParts, responseOf } from "./check-response.js";
import { type ContractOperation, operationCompiler } from "./compile-operation.js";
import { createRouteTable, type RouteMatch } from "./routes.js";
import { loadSpec, type OpenApiDocument, specOperations } from "./spec.js";

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

/** Compiles the contract of the spec; throws, naming the place, when a part of it cannot be compiled. */
export function compileContract(options: ContractOptions = {}): Contract {
  const spec = options.spec ?? loadSpec();
  const operations = specOperations(spec).map(operationCompiler(spec));
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const table = createRouteTable(operations.map((op) => ({ method: op.method, template: op.path, operation: op })));
  return {
    spec,
    operations,
    route: (method, url) => table.route(method, url),
    checkRequest,
    checkResponse: (operationId, response) => checkResponse(byId.get(operationId), response),
    checkResponseBody: (operationId, status, body) => checkResponseBody(byId.get(operationId), status, body),
    documented: (operationId, status) => responseOf(byId.get(operationId), status).found,
  };
}
