/**
 * Holds a running compute service backend to the spec: the runner, its options and report, the report's printers
 * and the command. The request generators it is built on are at `@compute-api/conformance/testing`.
 */

export { type CheckName, checks } from "./checks.js";
export { type CliIo, runCli } from "./cli.js";
export type { RawRequest } from "./http.js";
export type { Latency } from "./pacing.js";
export { formatReport, junitReport } from "./report.js";
export type { CheckResult, Failure } from "./results.js";
export { type ConformanceOptions, type Progress, type Report, runConformance } from "./run.js";
