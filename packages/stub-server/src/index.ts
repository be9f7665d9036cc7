/**
 * The compute service stub server: a stateful, validating stand-in for the service. Its data sets are
 * @compute-api/fixtures'; what only tests need is at `@compute-api/stub-server/testing`.
 */
export { createApp, type Stub, type StubOptions } from "./app.js";
export { type CliIo, type CliResult, runCli } from "./cli.js";
export type { FaultOptions } from "./faults.js";
export { type RunningStub, type ServerOptions, startServer } from "./server.js";
