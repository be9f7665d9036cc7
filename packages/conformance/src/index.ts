/** Holds a running compute service backend to the spec: the runner, its checks, and the request generators it shares with the repository's adversarial tests. */

export { type CheckName, checks, type Verdicts, violationsOf } from "./checks.js";
export { type CliIo, runCli } from "./cli.js";
export { type Answer, deadlineMs, jsonRequest, type RawRequest, send, sendBytes } from "./http.js";
export { type OperationShape, operationShapes, type ParameterShape, searchResourceTypes } from "./operation-shapes.js";
export type { Latency } from "./pacing.js";
export { curl, formatReport, junitReport } from "./report.js";
export {
  type Biases,
  createRequestArbitraries,
  fieldOf,
  type MutantInput,
  type RequestInput,
  type RequestSite,
  toRawRequest,
} from "./requests.js";
export type { CheckResult, Failure } from "./results.js";
export { type ConformanceOptions, type Progress, type Report, runConformance } from "./run.js";
export { createSchemaArbitraries, type SchemaArbitraries, type SchemaArbitraryOptions } from "./schema-arbitrary.js";
export { type Mutant, type MutationSite, mutationSites } from "./schema-mutants.js";
export { isWellFormed } from "./string-arbitrary.js";
