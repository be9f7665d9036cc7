/**
 * @compute-api/runtime: what the commands of compute-api and the server kit share at run time — the request log and
 * logger (pino), the drain, the JSON body parser and reader, CORS, the Host and Origin checks of an endpoint for this
 * machine only, the answers to what Node's HTTP parser refuses, and the pid lock of what one process at a time may
 * write. The command-line helpers are
 * `@compute-api/runtime/cli`, tracing `@compute-api/runtime/tracing`.
 */

export { answerClientErrors } from "./client-errors.js";
export { type CorsHandler, corsHandler, isPreflight } from "./cors.js";
export { type Drainable, type DrainOptions, drainable, drainDefaults, onShutdownSignal } from "./drain.js";
export { type HostOriginOptions, type HostOriginRefusal, hostOriginCheck, isLoopback } from "./host-origin.js";
export { defaultMaxBodyBytes, type JsonBody, jsonBodyParser, jsonBodyReader } from "./json-body.js";
export { createLogger, flushStdoutLog, type Logger, type RequestRecord, requestLogger } from "./logging.js";
export { PidLockHeld, takePidLock } from "./pid-lock.js";
