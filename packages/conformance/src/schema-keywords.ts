/**
 * The JSON Schema keywords the generators know: those they build into values, those that only annotate, and
 * those they do not support — meeting one of these, or a keyword they do not know, throws rather than
 * generating wrong values, so that a new construct in the spec is noticed.
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 */

/** Keywords that only annotate (or that OpenAPI adds) and never constrain a value. */
const annotations = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$defs",
  "title",
  "description",
  "examples",
  "example",
  "default",
  "deprecated",
  "discriminator",
  "xml",
  "externalDocs",
  "contentMediaType",
  "contentEncoding",
]);

/** Keywords that constrain values but are not supported: meeting one throws rather than generating wrong values. */
const unsupported = new Set([
  "prefixItems",
  "contains",
  "minContains",
  "maxContains",
  "patternProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "multipleOf",
]);

/** Keywords the generators build into values (schema-node.ts flattens them). */
const handled = new Set([
  "$ref",
  "type",
  "const",
  "enum",
  "not",
  "pattern",
  "minLength",
  "maxLength",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "allOf",
  "oneOf",
  "anyOf",
  "readOnly",
  "writeOnly",
]);

/** Throws on a keyword of the schema that is not supported or not known (`x-` extensions are allowed). */
export function checkKeywords(schema: { readonly [keyword: string]: unknown }, pointer: string): void {
  for (const keyword of Object.keys(schema)) {
    if (unsupported.has(keyword)) throw new Error(`${pointer}: keyword ${keyword} is not supported`);
    if (!handled.has(keyword) && !annotations.has(keyword) && !keyword.startsWith("x-")) {
      throw new Error(`${pointer}: unknown keyword ${keyword}`);
    }
  }
}
