/** Holds a running compute service backend to the spec: the runner, its checks, and the request generators it shares with the repository's adversarial tests. */
export { runConformance, type CheckResult, type ConformanceOptions, type Failure, type Latency, type Progress, type Report } from "./run.js";
export { checks, violationsOf, type CheckName, type Verdicts } from "./checks.js";
export { curl, formatReport, junitReport } from "./report.js";
export { runCli, type CliIo } from "./cli.js";
export { deadlineMs, jsonRequest, send, sendBytes, type Answer, type RawRequest } from "./http.js";
export {
  createRequestArbitraries,
  fieldOf,
  operationShapes,
  searchResourceTypes,
  toRawRequest,
  type Biases,
  type MutantInput,
  type OperationShape,
  type ParameterShape,
  type RequestInput,
  type RequestSite,
} from "./requests.js";
export { createSchemaArbitraries, isWellFormed, type SchemaArbitraries, type SchemaArbitraryOptions } from "./schema-arbitrary.js";
export { mutationSites, type Mutant, type MutationSite } from "./schema-mutants.js";
