/**
 * The types of a compute server: each operation's inputs and its success body, read from the spec's generated types
 * (`@compute-api/spec/types`), so that a handler map is checked by the compiler against the spec.
 */

import type { components, operations } from "@compute-api/spec/types";
import type { Request, Response } from "express";

/** The operations of the spec, by operationId: `updateClusterMachine`, `createApiKey`, `searchResources`. */
export type OperationId = keyof operations;

/** `T`, or an empty object when the operation has none (the generated types say `never`). */
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : T;

/** The JSON body of a request or response object of the generated types. */
type JsonOf<T> = T extends { content: { "application/json": infer Body } } ? Body : never;

/** The path parameters of an operation, such as `{ projectId, id }`. */
export type PathParameters<Op extends OperationId> = OrEmpty<NonNullable<operations[Op]["parameters"]["path"]>>;

/** The query parameters of an operation, such as `{ query }`. */
export type QueryParameters<Op extends OperationId> = OrEmpty<NonNullable<operations[Op]["parameters"]["query"]>>;

/** The JSON request body of an operation; `undefined` for an operation that takes none. */
export type RequestBody<Op extends OperationId> = operations[Op] extends { requestBody: infer Body }
  ? JsonOf<Body>
  : operations[Op] extends { requestBody?: infer Body }
    ? [NonNullable<Body>] extends [never]
      ? undefined
      : JsonOf<NonNullable<Body>> | undefined
    : undefined;

/** The 2xx statuses an operation may document as its success. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206;

/** The 2xx statuses an operation documents (the server answers with the lowest). */
export type SuccessStatusOf<Op extends OperationId> = Extract<keyof operations[Op]["responses"], SuccessStatus>;

/**
 * The JSON body of an operation's success response: what its handler returns (`undefined` for an answer without a
 * body, such as a 204).
 */
export type ResponseBody<Op extends OperationId> = [JsonOf<operations[Op]["responses"][SuccessStatusOf<Op>]>] extends [
  never,
]
  ? undefined
  : JsonOf<operations[Op]["responses"][SuccessStatusOf<Op>]>;

/** What a handler is given: the validated request, typed, and who sent it. */
export interface HandlerInput<Op extends OperationId, Principal> {
  /** The path parameters, decoded and valid. */
  path: PathParameters<Op>;
  /** The query parameters, valid. */
  query: QueryParameters<Op>;
  /** The JSON body, valid. */
  body: RequestBody<Op>;
  /** Who the request acts for, as `authenticate` resolved it. */
  principal: Principal;
  /** The Express request, for what the spec does not type (a request id, the remote address). */
  request: Request;
  /** The Express response, for headers of the implementer's own; the body and status are the server's. */
  response: Response;
  /**
   * Fires when the request's time is up (the server's `handlerTimeoutMs`; it has then answered 504) or its client
   * went away: hand it to the database query or the call the handler waits for, so that their work stops too.
   */
  signal: AbortSignal;
}

/**
 * One operation: returns its success body (answered with the operation's 2xx status), or throws the contract's errors (`ApiError`, from the factories such as
 * `notFound(…)`); anything else thrown is answered 500 with the error body and logged, never sent.
 */
export type Handler<Op extends OperationId, Principal> = (
  input: HandlerInput<Op, Principal>,
) => ResponseBody<Op> | Promise<ResponseBody<Op>>;

/** A handler for every operation of the spec, by operationId. */
export type Handlers<Principal> = { [Op in OperationId]: Handler<Op, Principal> };

/** The spec's schemas by name, such as `Schemas["Cluster"]`. */
export type Schemas = components["schemas"];
