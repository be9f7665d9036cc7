/**
 * JSON pointers into the bundled document (RFC 6901), as `$ref`s write them: `#/components/schemas/Decimal`.
 * The one resolver of the repository: the compiled contract, the stub's validator and the conformance runner
 * follow references with it.
 * @see https://www.rfc-editor.org/rfc/rfc6901
 */

/** Escapes one token of a JSON pointer: `~` becomes `~0`, `/` becomes `~1`. */
export const pointerToken = (token: string): string => token.replaceAll("~", "~0").replaceAll("/", "~1");

/** The value at a local pointer (`#/components/schemas/X`, tokens percent-encoded or not); throws when there is none. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith("#")) throw new Error(`only local references are supported, not ${pointer}`);
  const tokens = pointer
    .slice(1)
    .split("/")
    .slice(1)
    .map((t) => decodeURIComponent(t).replaceAll("~1", "/").replaceAll("~0", "~"));
  let value: unknown = document;
  for (const token of tokens) {
    if (typeof value !== "object" || value === null || !(token in value)) throw new Error(`nothing at ${pointer}`);
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

/** Follows a local `$ref` to the object it names; a value without `$ref` is returned as it is. */
export function deref<T>(document: unknown, value: T & { $ref?: string }): T {
  return value.$ref ? (resolvePointer(document, value.$ref) as T) : value;
}
