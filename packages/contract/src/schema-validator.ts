/**
 * Validates plain values against the schemas of the bundled document with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1). Used where a value is not an HTTP message: fixture files, tests.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { OpenApiDocument } from "./spec.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const int32 = { type: "number" as const, validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 };
const int64 = { type: "number" as const, validate: (n: number) => Number.isSafeInteger(n) };

/**
 * Keywords of OpenAPI that are not JSON Schema keywords: those of Schema Objects, and the top-level fields of
 * the document itself, which Ajv meets when it resolves a pointer into the document.
 */
const openApiKeywords = [
  "discriminator",
  "example",
  "xml",
  "externalDocs",
  "openapi",
  "info",
  "jsonSchemaDialect",
  "servers",
  "paths",
  "webhooks",
  "components",
  "security",
  "tags",
];

/** Creates an Ajv instance that knows the OpenAPI formats and keywords and holds the whole document. */
export function createAjv(spec: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat("int32", int32);
  ajv.addFormat("int64", int64);
  ajv.addVocabulary(openApiKeywords);
  ajv.addSchema(spec, "openapi.json");
  return ajv;
}

/** A compiled schema of the document and the errors of its last run. */
export interface SchemaValidator {
  /** Returns the errors of value against the schema at pointer, or an empty list. */
  validate(pointer: string, value: unknown): ErrorObject[];
  /** Returns the compiled function for the schema at pointer (compiled once). */
  compile(pointer: string): ValidateFunction;
}

/** Validates values against schemas of the document named by JSON pointer, such as `#/components/schemas/Cluster`. */
export function createSchemaValidator(spec: OpenApiDocument): SchemaValidator {
  const ajv = createAjv(spec);
  const compiled = new Map<string, ValidateFunction>();
  const compile = (pointer: string): ValidateFunction => {
    let fn = compiled.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `openapi.json${pointer}` });
      compiled.set(pointer, fn);
    }
    return fn;
  };
  return {
    compile,
    validate(pointer, value) {
      const fn = compile(pointer);
      return fn(value) ? [] : [...(fn.errors ?? [])];
    },
  };
}
