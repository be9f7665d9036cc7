/** The compute service stub server: a stateful, validating stand-in for the service. */

// The validator and error handler the stub is built with, from @compute-api/server (kept here for earlier users).
export {
  type ContractValidator,
  type ContractValidatorOptions,
  createContractValidator,
  errorHandler,
  type ValidatorAuthenticate as Authenticate,
} from "@compute-api/server";
export { createApp, defaultKeyId, type Stub, type StubOptions } from "./app.js";
export { type CliIo, type CliResult, runCli } from "./cli.js";
export type { FaultOptions } from "./faults.js";
export { builtinFixtures } from "./fixtures/builtin.js";
export { type GenerateOptions, generateFixtures } from "./fixtures/generate-fixtures.js";
export { FixtureError, loadFixtures } from "./fixtures/load-fixtures.js";
export { type RunningStub, type ServerOptions, startServer } from "./server.js";
// The command line of servers shaped as compute-stub (examples/postgres's compute-postgres is one).
export {
  type DrainingServer,
  type DrainTimes,
  drainTimesOf,
  fixturesOf,
  listeningLines,
  parseServerFlags,
  runUntilSignal,
  type ServerCommandOptions,
  type ServerFlags,
  serverCommand,
} from "./server-command.js";
export type { FixtureApiKey, Fixtures, FixtureUser } from "./types.js";
