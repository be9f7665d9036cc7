/**
 * `@compute-api/contract/http`: the HTTP helpers every server of the project shares — the JSON body parser and
 * reader, CORS, the request log and logger, the answers to what Node's HTTP parser refuses, and the drain.
 */

export { answerClientErrors } from "./client-errors.js";
export { type CorsHandler, corsHandler, isPreflight, parseOrigins } from "./cors.js";
export {
  type Drainable,
  type DrainOptions,
  drainable,
  drainDefaults,
  flushOnDrain,
  onShutdownSignal,
} from "./drain.js";
export { defaultMaxBodyBytes, type JsonBody, jsonBodyParser, jsonBodyReader } from "./json-body.js";
export { createLogger, flushStdoutLog, type Logger, type RequestRecord, requestLogger } from "./logging.js";
