/** The bundled document and helpers to look into it, for tests. */
import { createSchemaValidator, loadSpec } from "@compute-api/contract";

/** A schema of the bundled document, loosely typed. */
export type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: string[];
  items?: Schema;
  properties?: Record<string, Schema | boolean>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
};

/** The bundled document. */
export const spec = loadSpec();

/** An Ajv-backed validator over the bundled document. */
export const validator = createSchemaValidator(spec);

/** The component schema of the given name. */
export function schema(name: string): Schema {
  const s = (spec.components.schemas as Record<string, Schema>)[name];
  if (!s) throw new Error(`no component schema ${name}`);
  return s;
}

/** The component name a `#/components/schemas/X` reference points at. */
export function refName(s: Schema | undefined): string | undefined {
  return s?.$ref?.replace("#/components/schemas/", "");
}

/** The properties of a schema, including those of its allOf parts. */
export function allProperties(s: Schema): Record<string, Schema | boolean> {
  const own = { ...(s.properties ?? {}) };
  for (const part of s.allOf ?? []) {
    const resolved = part.$ref ? schema(refName(part) ?? "") : part;
    Object.assign(own, allProperties(resolved));
  }
  return own;
}
