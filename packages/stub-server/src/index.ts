/** The compute service stub server: a stateful, validating stand-in for the service. */
export { createApp, defaultKeyId, type StubOptions } from "./app.js";
export { startServer, type RunningStub, type ServerOptions } from "./server.js";
export { runCli, type CliIo, type CliResult } from "./cli.js";
export { builtinFixtures } from "./fixtures/builtin.js";
export { checkFixtures } from "./fixtures/check-fixtures.js";
export { FixtureError, loadFixtures, validFixtures } from "./fixtures/load-fixtures.js";
export { generateFixtures, type GenerateOptions } from "./fixtures/generate-fixtures.js";
export { apiKeyPrefix } from "./store/api-keys.js";
export type { Fixtures, FixtureUser, FixtureApiKey } from "./types.js";
export { createContractValidator, errorHandler, type Authenticate, type ContractValidator, type ContractValidatorOptions } from "./contract-validator.js";
export type { FaultOptions } from "./faults.js";
