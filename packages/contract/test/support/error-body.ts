/** The check of error bodies against the spec's ErrorBody schema, shared by this package's tests. */
import { createSchemaValidator } from "../../src/schema-validator.js";
import { loadSpec } from "../../src/spec.js";

/** The bundled spec's schemas, compiled once. */
const validator = createSchemaValidator(loadSpec());

/** The ways the body breaks the ErrorBody schema; empty when it is a valid error body. */
export const errorBodyErrors = (body: unknown) => validator.validate("#/components/schemas/ErrorBody", body);
