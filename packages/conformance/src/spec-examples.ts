/**
 * The examples the spec gives of a parameter or a request body — `example`, `examples` (each Example Object's
 * `value`, followed through `$ref`) and the schema's own `examples` — that are valid against its schema, so that
 * a generated request carries values a person wrote (ids of the published data, say) beside generated ones.
 * @see https://spec.openapis.org/oas/v3.1.0#example-object
 */
import { type OpenApiDocument, resolvePointer } from "@compute-api/contract";
import type { SchemaArbitraries } from "./schema-arbitrary.js";
import { nodeAt } from "./schema-node.js";

type WithExamples = { $ref?: string; example?: unknown; examples?: unknown; value?: unknown };

/** The object at a pointer, followed through `$ref`. */
function objectAt(spec: OpenApiDocument, pointer: string): WithExamples | undefined {
  let found = resolvePointer(spec, pointer) as WithExamples | undefined;
  for (let hops = 0; typeof found?.$ref === "string" && hops < 8; hops++)
    found = resolvePointer(spec, found.$ref) as WithExamples | undefined;
  return found && typeof found === "object" ? found : undefined;
}

/** The example values written at an object: `example`, and `examples` as an array or a map of Example Objects. */
function examplesOf(spec: OpenApiDocument, at: WithExamples | undefined, pointer: string): unknown[] {
  if (!at) return [];
  const out = "example" in at ? [at.example] : [];
  if (Array.isArray(at.examples)) out.push(...at.examples);
  else if (at.examples && typeof at.examples === "object")
    for (const name of Object.keys(at.examples)) {
      const example = objectAt(spec, `${pointer}/examples/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`);
      if (example && "value" in example) out.push(example.value);
    }
  return out;
}

/**
 * The examples of the schema at `schemaPointer` and of the object that holds it (a Parameter Object or a Media
 * Type Object, at the pointer without its `/schema`), valid against the schema.
 */
export function examplesAt(arbitraries: SchemaArbitraries, schemaPointer: string): unknown[] {
  const spec = arbitraries.document;
  const holder = schemaPointer.replace(/\/schema$/, "");
  const values = [
    ...examplesOf(spec, objectAt(spec, holder), holder),
    ...examplesOf(spec, objectAt(spec, schemaPointer), schemaPointer),
  ];
  const node = [nodeAt(spec, schemaPointer)];
  return values.filter((v) => v !== undefined && arbitraries.isValid(node, v));
}
