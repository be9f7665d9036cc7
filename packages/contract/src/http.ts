/**
 * `@compute-api/contract/http`: the HTTP helpers the stub server and the gateway share — the JSON body parser and
 * reader, CORS, the request log and logger, and the answers to what Node's HTTP parser refuses.
 */

export { answerClientErrors } from "./client-errors.js";
export { type CorsHandler, corsHandler, isPreflight, parseOrigins } from "./cors.js";
export { defaultMaxBodyBytes, type JsonBody, jsonBodyParser, jsonBodyReader } from "./json-body.js";
export { createLogger, type Logger, type RequestRecord, requestLogger } from "./logging.js";
