/**
 * The JSON body of a Fetch API request (what MSW hands a handler), read as the stub's body-parser reads a node:http
 * request (`@compute-api/runtime`'s JSON parser): only `application/json` and `application/*+json` bodies,
 * a UTF charset only, gzip and deflate inflated, at most the spec's `x-max-request-body-bytes` (1 MiB) after inflating, strict JSON (an object or an
 * array; an empty body is `{}`). Its failures are body-parser's errors by type, answered through the contract's one
 * mapping, `toApiError`: malformed JSON 400, too large 413, another charset or content coding 415.
 */
import { toApiError } from "@compute-api/contract";
import { maxRequestBodyBytes } from "@compute-api/spec/facts";

/** Largest request body accepted, in bytes after inflating: the spec's `x-max-request-body-bytes`. */
export const maxBodyBytes: number = maxRequestBodyBytes;

/** A body read: the parsed value (undefined without a JSON body) and its size in bytes as sent. */
export interface FetchJsonBody {
  value: unknown;
  sentBytes: number;
}

/** A token of RFC 9110 §5.6.2, as media-typer reads the type and subtype. */
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const mediaType = new RegExp(`^(${token})/(${token})$`);

/** Whether body-parser parses a Content-Type as JSON (type-is: a well-formed type, `application/json` or `application/*+json`). */
function isJsonContentType(contentType: string | null): boolean {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  const match = mediaType.exec(type);
  return match !== null && match[1] === "application" && (match[2] === "json" || match[2]!.endsWith("+json"));
}

/** The charset parameter of a Content-Type, lower case; undefined without one. */
function charsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(";").slice(1)) {
    const at = parameter.indexOf("=");
    if (at > 0 && parameter.slice(0, at).trim().toLowerCase() === "charset")
      return parameter
        .slice(at + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase();
  }
  return undefined;
}

/** An error shaped as body-parser's (http-errors: a status and a type), for `toApiError`. */
const parserError = (status: number, type: string, message: string) => toApiError({ status, type, message });

/** The bytes of a body in a content coding, inflated; gzip and deflate only (what every browser's DecompressionStream reads). */
async function inflate(bytes: Uint8Array<ArrayBuffer>, coding: string): Promise<Uint8Array> {
  if (coding === "identity") return bytes;
  if (coding !== "gzip" && coding !== "deflate")
    throw parserError(415, "encoding.unsupported", `unsupported content encoding "${coding}"`);
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(coding));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (error) {
    // body-parser answers a body that does not inflate 400, with zlib's message.
    throw toApiError({ status: 400, message: error instanceof Error ? error.message : "the body does not inflate" });
  }
}

/** Strict JSON as body-parser parses it: `{}` for an empty body, an object or an array, else a parse failure. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  // JSON's whitespace (RFC 8259 §2): space, tab, line feed, carriage return.
  const first = /^[ \t\n\r]*([^ \t\n\r])/.exec(text)?.[1];
  if (first !== "{" && first !== "[") throw parserError(400, "entity.parse.failed", "strict violation");
  try {
    return JSON.parse(text);
  } catch {
    throw parserError(400, "entity.parse.failed", "malformed JSON");
  }
}

/**
 * Reads the JSON body of a request; rejects with the ApiError of body-parser's failure. `hasBody` is body-parser's
 * test of the request's framing (a Content-Length or a Transfer-Encoding), which a Fetch request does not always show.
 */
export async function readJsonBody(request: Request, hasBody: boolean): Promise<FetchJsonBody> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const contentType = request.headers.get("content-type");
  if (!hasBody || !isJsonContentType(contentType)) return { value: undefined, sentBytes: bytes.length };
  const charset = charsetOf(contentType ?? "") ?? "utf-8";
  if (!charset.startsWith("utf-"))
    throw parserError(415, "charset.unsupported", `unsupported charset "${charset.toUpperCase()}"`);
  const coding = (request.headers.get("content-encoding") ?? "identity").toLowerCase();
  if (coding === "identity" && bytes.length > maxBodyBytes)
    throw parserError(413, "entity.too.large", "request entity too large");
  const inflated = await inflate(bytes, coding);
  if (inflated.length > maxBodyBytes) throw parserError(413, "entity.too.large", "request entity too large");
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    throw parserError(415, "charset.unsupported", `unsupported charset "${charset.toUpperCase()}"`);
  }
  return { value: parseStrict(decoder.decode(inflated)), sentBytes: bytes.length };
}
