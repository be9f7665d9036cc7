/**
 * The JSON request body, read the one way the stub server and the gateway both read it: body-parser's JSON
 * parser (the parser inside express.json) with the body limit, UTF-8 only, strict JSON, and gzip, deflate or br
 * bodies inflated. Its errors (malformed JSON, 413, 415) become the error body through `toApiError`.
 * body-parser hands the bytes it parsed only to its `verify` hook, so the gateway's reader keeps them on the
 * request under a private symbol and returns them beside the value, to forward them as received.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { maxRequestBodyBytes } from "@compute-api/spec/facts";
import bodyParser from "body-parser";

/** Largest request body accepted, in bytes: the spec's `x-max-request-body-bytes` (1 MiB). */
export const defaultMaxBodyBytes: number = maxRequestBodyBytes;

/** Options of the JSON body parser. */
export interface JsonBodyOptions {
  /** Largest body in bytes, after decompression; default the spec's (`defaultMaxBodyBytes`). */
  maxBodyBytes?: number;
}

/** A body-parser middleware: sets `req.body` to the parsed JSON, or leaves it undefined when there is no JSON body. */
export type JsonBodyParser = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** A JSON body as read: the parsed value and the bytes it was parsed from (decompressed); both undefined without one. */
export interface JsonBody {
  value: unknown;
  bytes: Buffer | undefined;
}

/** Reads the JSON body of a node:http request; rejects with the parser's error (400, 413, 415). */
export type JsonBodyReader = (req: IncomingMessage, res: ServerResponse) => Promise<JsonBody>;

/** Media types whose bodies are parsed as JSON. */
export const jsonMediaTypes = ["application/json", "application/*+json"];

const bytesOf = Symbol("the bytes of the parsed body");
type WithBody = IncomingMessage & { body?: unknown; [bytesOf]?: Buffer };

function createParser(options: JsonBodyOptions, keepBytes: boolean): JsonBodyParser {
  return bodyParser.json({
    limit: options.maxBodyBytes ?? defaultMaxBodyBytes,
    strict: true,
    type: jsonMediaTypes,
    ...(keepBytes
      ? {
          verify: (req: WithBody, _res: ServerResponse, bytes: Buffer) => {
            req[bytesOf] = bytes;
          },
        }
      : {}),
  }) as JsonBodyParser;
}

/** Creates the parser as middleware (Express, or any `(req, res, next)` stack). */
export function jsonBodyParser(options: JsonBodyOptions = {}): JsonBodyParser {
  return createParser(options, false);
}

/** What a request without a body reads as. */
const noBody: Promise<JsonBody> = Promise.resolve(Object.freeze({ value: undefined, bytes: undefined }));

/** Creates a reader of JSON bodies for a server on plain node:http, keeping the bytes so that they can be forwarded. */
export function jsonBodyReader(options: JsonBodyOptions = {}): JsonBodyReader {
  const parser = createParser(options, true);
  return (req: WithBody, res) =>
    // Without Content-Length or Transfer-Encoding there is no body, and body-parser would hand back nothing
    // (type-is's hasBody, its first check): most requests (every GET) skip it, and its promise and callback.
    req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined
      ? noBody
      : new Promise((resolve, reject) => {
          parser(req, res, (error) =>
            error === undefined ? resolve({ value: req.body, bytes: req[bytesOf] }) : reject(error),
          );
        });
}
