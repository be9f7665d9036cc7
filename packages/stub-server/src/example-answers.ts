/**
 * The answers of the operations the stub's store does not implement, from the spec's own examples, as Prism's
 * static mode gives them: the example of the operation's success status (the first, or the one `Prefer:
 * example=<name>` names), answered with that status and validated like every answer. An operation without an
 * example is answered 501 with the error body naming it; one whose success has no body (204) answers nothing.
 * Free of Express and of Node built-ins: the Express app and the MSW handlers both answer with it.
 * @see https://docs.stoplight.io/docs/prism/
 */
import { catalogueError, deref, type OpenApiDocument, specOperations } from "@compute-api/contract";

import { badPrefer, parsePrefer } from "./fault-rules.js";

/** An operation answered from the spec: its success status, and its examples by name (none: 501; or no body). */
export interface ExampleOperation {
  operationId: string;
  status: number;
  /** The success response has a body (false: a 204). */
  hasBody: boolean;
  /** The success body's examples, by name, in the document's order; a lone `example` is named `example`. */
  examples: Map<string, unknown>;
}

/** What an example answer is: its body (undefined: none) and the preference it applied. */
export interface ExampleAnswer {
  body: unknown;
  applied: string | undefined;
}

/** The operations of the spec not in `implemented`, each with what it answers from the spec's examples. */
export function exampleOperations(spec: OpenApiDocument, implemented: ReadonlySet<string>): ExampleOperation[] {
  return specOperations(spec)
    .filter(({ operation }) => !implemented.has(String(operation.operationId)))
    .map(({ operation, success: { status, media } }) => {
      const examples = new Map<string, unknown>();
      for (const [name, example] of Object.entries(media?.examples ?? {})) {
        const value = deref(spec, example as { value?: unknown; $ref?: string }).value;
        if (value !== undefined) examples.set(name, value);
      }
      if (examples.size === 0 && media?.example !== undefined) examples.set("example", media.example);
      return { operationId: String(operation.operationId), status, hasBody: media !== undefined, examples };
    });
}

/**
 * The answer of an example operation to a request with this `Prefer` header (undefined when the stub ignores
 * `Prefer`): an unknown `example=` name is refused with 400, an operation without an example answered 501.
 */
export function exampleAnswer(operation: ExampleOperation, prefer: string | string[] | undefined): ExampleAnswer {
  if (!operation.hasBody) return { body: undefined, applied: undefined };
  const { operationId, examples } = operation;
  if (examples.size === 0)
    throw catalogueError(
      "NOT_IMPLEMENTED",
      `the stub does not implement the operation '${operationId}', and the spec gives no example of its answer`,
      { metadata: { operationId } },
    );
  const name = prefer === undefined ? undefined : parsePrefer(prefer).get("example");
  if (name === undefined) return { body: examples.values().next().value, applied: undefined };
  if (!examples.has(name))
    throw badPrefer(`example=${name} is not an example of ${operationId} (${[...examples.keys()].join(", ")})`);
  return { body: examples.get(name), applied: `example=${name}` };
}
