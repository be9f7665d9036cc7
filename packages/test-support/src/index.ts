/**
 * What the repository's suites share: a logger that keeps its lines, the check of an error answer, servers on
 * ephemeral 127.0.0.1 ports, and the processes a suite started. The launchers of programs from the system are
 * subpaths of their own (`/nginx`, `/postgres`, `/browser`), so that a suite loads only the one it starts.
 */
export { type CapturedLogs, captureLogs } from "./capture-logs.js";
export { keepEnvironment } from "./environment.js";
export {
  type ErrorAnswer,
  type ErrorBodyLike,
  errorBodyErrors,
  errorBodyProblems,
  expectErrorBody,
} from "./error-body.js";
export { everyOperation } from "./every-operation.js";
export { freePort, type Listening, listenLocal } from "./listen-local.js";
export { acceptedConnections, childrenOf, groupAlive, isRunning, killGroup } from "./processes.js";
