/**
 * Validates plain values against the schemas of the bundled document with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1). Used where a value is not an HTTP message: fixture files, tests.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { int32Format, int64Format } from "./formats.js";
import type { OpenApiDocument } from "./spec.js";
import { extensionKeywords } from "./spec-extensions.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

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

/** How an Ajv instance of the document checks values. */
export interface AjvOptions {
  /**
   * Use Ajv's `discriminator` keyword: a value of a `oneOf` with a discriminator is checked against the branch its
   * tag names only. Ajv refuses the OpenAPI `mapping` field, so the document is added without it.
   */
  discriminator?: boolean;
  /** Coerce strings to the declared scalar types, as parameters arrive (default false). */
  coerceTypes?: boolean;
}

/** Removes the `mapping` of every discriminator, which Ajv's `discriminator` keyword does not accept. */
function withoutMappings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMappings);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === "discriminator" && typeof child === "object" && child !== null) {
      const { mapping: _mapping, ...rest } = child as Record<string, unknown>;
      out[key] = rest;
    } else {
      out[key] = withoutMappings(child);
    }
  }
  return out;
}

/** Creates an Ajv instance that knows the OpenAPI formats and keywords and holds the whole document. */
export function createAjv(spec: OpenApiDocument, options: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    // A oneOf with a discriminator (SearchResult) carries no `type: object` of its own; its branches do.
    strictTypes: !options.discriminator,
    validateSchema: false,
    discriminator: options.discriminator ?? false,
    coerceTypes: options.coerceTypes ?? false,
  });
  addFormats(ajv);
  ajv.addFormat("int32", int32Format);
  ajv.addFormat("int64", int64Format);
  ajv.addVocabulary(options.discriminator ? openApiKeywords.filter((k) => k !== "discriminator") : openApiKeywords);
  for (const keyword of extensionKeywords) ajv.addKeyword(keyword);
  ajv.addSchema(options.discriminator ? (withoutMappings(spec) as OpenApiDocument) : spec, "openapi.json");
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
