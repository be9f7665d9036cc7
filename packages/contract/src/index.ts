/** Code shared by the compute-api stub server and gateway. */
export { defaultSpecPath, loadSpec, type OpenApiDocument } from "./spec.js";
export { createAjv, createSchemaValidator, type SchemaValidator } from "./schema-validator.js";
