/**
 * Media types as the validators compare them: the type of a Content-Type value, whether it is JSON, and which
 * declared media type of an operation a request's matches.
 * @see https://spec.openapis.org/oas/v3.1.0#media-types
 */

/** The media type of a Content-Type value: lower case, without parameters; undefined when there is none. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  // Sliced rather than split: checking a response reads its Content-Type, and split made an array per response.
  const end = contentType.indexOf(";");
  return (end < 0 ? contentType : contentType.slice(0, end)).toLowerCase().trim();
}

/** Whether a media type is JSON (`application/json` or any `+json` type). */
export const isJsonMediaType = (type: string | undefined): boolean =>
  type === "application/json" || (type?.endsWith("+json") ?? false);

/**
 * The value of the declared media type (keyed by `mediaTypeOf`) that matches the request's: exactly, then
 * `type/*`, then `*\/*`.
 */
export function selectMediaType<T>(
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
