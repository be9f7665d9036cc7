/** The compute service stub server: a stateful, validating stand-in for the service. */
export { createApp, defaultKeyId, type Stub, type StubOptions } from "./app.js";
export { type CliIo, type CliResult, runCli } from "./cli.js";
export {
  type Authenticate,
  type ContractValidator,
  type ContractValidatorOptions,
  createContractValidator,
} from "./contract-validator.js";
export { errorHandler } from "./error-handlers.js";
export type { FaultOptions } from "./faults.js";
export { builtinFixtures } from "./fixtures/builtin.js";
export { type GenerateOptions, generateFixtures } from "./fixtures/generate-fixtures.js";
export { FixtureError, loadFixtures } from "./fixtures/load-fixtures.js";
export { type RunningStub, type ServerOptions, startServer } from "./server.js";
export type { FixtureApiKey, Fixtures, FixtureUser } from "./types.js";
