/**
 * `@compute-api/server/validator`: the plumbing `createComputeServer` is built with — express-openapi-validator set
 * up for the spec, and the error handlers that answer with the interface's error body — for those who assemble an
 * Express app of their own (the differential test holds the gateway to this validator alone).
 */
export {
  type Authenticate,
  type ContractValidator,
  type ContractValidatorOptions,
  createContractValidator,
  type ResponseViolation,
} from "./contract-validator.js";
export { errorHandler, notFound } from "./error-handlers.js";
