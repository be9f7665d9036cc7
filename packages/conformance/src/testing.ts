/**
 * `@compute-api/conformance/testing`: the request generators the runner is built on, and the sender it uses, for
 * test suites of their own — the repository's adversarial suite runs on them, against the stub directly and
 * through the gateway, so that there is one implementation. A user of the runner needs only the main entry.
 */

export { violationsOf } from "./checks.js";
export { type Answer, jsonRequest, type RawRequest, send, sendBytes } from "./http.js";
export { type OperationShape, type ParameterShape, searchResourceTypes } from "./operation-shapes.js";
export {
  type Biases,
  createRequestArbitraries,
  type MutantInput,
  type RequestArbitraries,
  type RequestInput,
  type RequestSite,
  toRawRequest,
} from "./requests.js";
export type { SchemaArbitraries, SchemaArbitraryOptions } from "./schema-arbitrary.js";
