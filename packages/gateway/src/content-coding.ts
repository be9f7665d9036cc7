/**
 * Compressed responses. The gateway offers the backend only the content codings it can decode (gzip, deflate and
 * br, which node:zlib decodes; zstd is not in Node 20's zlib), decodes a compressed body to check it, and sends
 * the caller the original bytes with their Content-Encoding. The decoded size counts against the response limit,
 * so a compression bomb stops after at most that many bytes.
 * @see https://www.rfc-editor.org/rfc/rfc9110#name-content-codings
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from "node:zlib";
import type { FieldViolation } from "@compute-api/contract";
import Negotiator from "negotiator";

/** The codings the gateway can decode, in its order of preference. */
export const decodableCodings = ["gzip", "deflate", "br"];

// Callers send few distinct Accept-Encoding values, so each is negotiated once (a bounded memo, not per request).
const offered = new Map<string, string>();

/** The Accept-Encoding to send upstream: the caller's acceptable codings the gateway decodes, else `identity`. */
export function upstreamAcceptEncoding(acceptEncoding: string | undefined): string {
  const key = acceptEncoding ?? "";
  let value = offered.get(key);
  if (value === undefined) {
    const codings = new Negotiator({ headers: { "accept-encoding": acceptEncoding } }).encodings(decodableCodings);
    value = codings.length > 0 ? codings.join(", ") : "identity";
    if (offered.size < 1000) offered.set(key, value);
  }
  return value;
}

type Decode = (bytes: Buffer, options: ZlibOptions) => Buffer;

/** HTTP's "deflate" is the zlib format, but some servers send a raw deflate stream: both are read, as browsers do. */
const inflateEither: Decode = (bytes, options) => {
  try {
    return inflateSync(bytes, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "Z_DATA_ERROR") throw error;
    return inflateRawSync(bytes, options);
  }
};

// Synchronous, like the JSON.parse that follows: on libuv's thread pool a 28 KB search body took 111 µs of CPU
// to decode, on the main thread 25 µs.
const decoders: Record<string, Decode> = {
  gzip: gunzipSync,
  "x-gzip": gunzipSync,
  deflate: inflateEither,
  br: brotliDecompressSync,
};

/** A body decoded: its bytes, the violation that it does not decode, or its decoded size over the limit. */
export type Decoded = { bytes: Buffer } | { violation: FieldViolation } | { tooLarge: true };

/**
 * Decodes a body by its Content-Encoding (codings applied in order, so undone in reverse), never past `maxBytes`
 * decoded bytes (zlib's `maxOutputLength` stops the stream there). An identity or absent encoding is the body itself.
 */
export function decodeBody(contentEncoding: string | string[] | undefined, body: Buffer, maxBytes: number): Decoded {
  if (contentEncoding === undefined || body.length === 0) return { bytes: body };
  const codings = String(contentEncoding)
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  if (codings.length === 0) return { bytes: body };
  let bytes = body;
  for (const coding of codings.reverse()) {
    const decode = decoders[coding];
    if (!decode) {
      return {
        violation: {
          field: "response.header.content-encoding",
          description: `${coding} is not a content coding the gateway can decode (gzip, deflate, br)`,
          reason: "content-encoding",
        },
      };
    }
    try {
      bytes = decode(bytes, { maxOutputLength: maxBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return { tooLarge: true };
      return {
        violation: { field: "response.body", description: `is not valid ${coding} data`, reason: "content-encoding" },
      };
    }
  }
  return { bytes };
}
