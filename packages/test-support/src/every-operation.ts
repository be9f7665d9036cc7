/**
 * A test backend built on the server kit implements the operations its test is about; the kit needs a handler for
 * every operation of the spec, so the others are filled in here, each answering 501 NOT_IMPLEMENTED naming itself.
 * An operation added to openapi/ then needs no line in such a test.
 */
import { catalogueError, loadSpec, type OpenApiDocument, specOperations } from "@compute-api/contract";

/**
 * `given`, with a handler answering 501 for every other operation of the spec. The handler map's type is given as
 * the type argument (`everyOperation<Handlers<Caller>>({ … })`), so that the given handlers are typed by it.
 */
export function everyOperation<Full extends object>(given: Partial<Full>, spec: OpenApiDocument = loadSpec()): Full {
  const handlers: Record<string, unknown> = {};
  for (const { operation } of specOperations(spec)) {
    const operationId = String(operation.operationId);
    handlers[operationId] = () => {
      throw catalogueError("NOT_IMPLEMENTED", `the test backend does not implement '${operationId}'`);
    };
  }
  return { ...handlers, ...given } as Full;
}
