/**
 * fast-check arbitraries of the values a schema of the bundled document accepts, derived from its keywords:
 * type, const, enum, not, pattern (fast-check's stringMatching), minLength/maxLength, format (date-time, int32,
 * int64), minimum/maximum and their exclusive forms, properties/required/additionalProperties,
 * minProperties/maxProperties, items/minItems/maxItems/uniqueItems, $ref (with sibling keywords), allOf, oneOf
 * and anyOf. An unsupported keyword throws (see schema-keywords.ts). Where a keyword cannot be built into the
 * generator (`not` other than const/enum, the exclusiveness of `oneOf`), values are filtered with Ajv.
 */
import { createSchemaValidator, type OpenApiDocument, type SchemaValidator } from "@compute-api/contract";
import fc from "fast-check";
import { integerArbitrary, numberArbitrary } from "./number-arbitrary.js";
import {
  canonicalJson,
  type FlatSchema,
  flatten,
  isNever,
  type JsonType,
  nodeAt,
  possibleTypes,
  type SchemaNode,
} from "./schema-node.js";
import { defaultSpan, stringArbitrary } from "./string-arbitrary.js";

/** Where a value sits in the generated value: property names, and `*` for any item of an array. */
export type ValuePath = readonly string[];

/** Options of the arbitraries. */
export interface SchemaArbitraryOptions {
  /** `request` leaves out readOnly properties, `response` writeOnly ones; default `request`. */
  direction?: "request" | "response";
  /**
   * Replaces the arbitrary at a value path, such as `["volumeIds", "*"]`, to bias generation (towards ids that
   * exist, say); `fallback()` is the arbitrary the schema gives there, to mix in. What it produces must still be
   * valid there; callers check that in their own tests.
   */
  override?: (path: ValuePath, fallback: () => fc.Arbitrary<unknown>) => fc.Arbitrary<unknown> | undefined;
}

/** Builds arbitraries for the schemas of one document. */
export interface SchemaArbitraries {
  /** Values valid against the schema at the pointer, such as `#/components/schemas/UpdateClusterMachineRequest`. */
  forPointer(pointer: string, options?: SchemaArbitraryOptions): fc.Arbitrary<unknown>;
  /** Values valid against all the nodes at once; `path` is where they sit in the whole value (for `override`). */
  forNodes(nodes: readonly SchemaNode[], path: ValuePath, options?: SchemaArbitraryOptions): fc.Arbitrary<unknown>;
  /** Whether a value is valid against every node (Ajv). */
  isValid(nodes: readonly SchemaNode[], value: unknown): boolean;
  /** The flattened constraints of the nodes. */
  flatten(nodes: readonly SchemaNode[]): FlatSchema;
  readonly document: OpenApiDocument;
  readonly validator: SchemaValidator;
}

/** Names a oneOf/anyOf group by the pointer of the keyword (`…/oneOf`). */
const groupKey = (branches: readonly SchemaNode[]): string => branches[0]?.pointer.replace(/\/\d+$/, "") ?? "";

/** What the arbitraries of one kind of value are built with: the document's validity, flattening and the arbitraries of inner values. */
interface Generation {
  isValid(nodes: readonly SchemaNode[], value: unknown): boolean;
  flatten(nodes: readonly SchemaNode[]): FlatSchema;
  forNodes(nodes: readonly SchemaNode[], path: ValuePath, options: SchemaArbitraryOptions): fc.Arbitrary<unknown>;
}

/** Arbitraries for the schemas of the document. */
export function createSchemaArbitraries(document: OpenApiDocument): SchemaArbitraries {
  const validator = createSchemaValidator(document);
  const isValid = (nodes: readonly SchemaNode[], value: unknown): boolean =>
    nodes.every((n) => n.schema === true || validator.compile(n.pointer)(value));

  const generation: Generation = {
    isValid,
    flatten: (nodes) => flatten(document, nodes),
    forNodes: (nodes, path, options) => forNodes(nodes, path, options),
  };

  function forNodes(
    nodes: readonly SchemaNode[],
    path: ValuePath,
    options: SchemaArbitraryOptions = {},
    expanded: ReadonlySet<string> = new Set(),
    overrideHere = true,
  ): fc.Arbitrary<unknown> {
    const overridden = overrideHere
      ? options.override?.(path, () => forNodes(nodes, path, options, expanded, false))
      : undefined;
    if (overridden) return overridden;
    if (isNever(nodes)) throw new Error(`nothing is valid at ${path.join(".") || "the root"} (false schema)`);
    const flat = flatten(document, nodes);
    const groups = [
      ...flat.oneOf.map((branches) => ({ branches, exclusive: true })),
      ...flat.anyOf.map((branches) => ({ branches, exclusive: false })),
    ].filter((g) => !expanded.has(groupKey(g.branches)));
    let arbitrary: fc.Arbitrary<unknown>;
    const [group] = groups;
    if (flat.const) arbitrary = fc.constant(flat.const.value);
    else if (flat.enum) {
      if (flat.enum.length === 0) throw new Error(`no enum value is valid at ${path.join(".")}`);
      arbitrary = fc.constantFrom(...flat.enum);
    } else if (group) {
      // A branch is generated together with every other schema that applies here; the next oneOf/anyOf group,
      // if any, is expanded inside it.
      const inner = new Set([...expanded, groupKey(group.branches)]);
      const branches = group.branches
        .filter((b) => b.schema !== false)
        .map((b) => forNodes([...nodes, b], path, options, inner));
      arbitrary = fc.oneof(...branches);
      if (group.exclusive)
        arbitrary = arbitrary.filter((v) => group.branches.filter((b) => isValid([b], v)).length === 1);
    } else {
      const possible = possibleTypes(flat);
      const types = possible.filter((t) => !(t === "number" && possible.includes("integer")));
      if (types.length === 0) throw new Error(`no type is valid at ${path.join(".") || "the root"}`);
      arbitrary = fc.oneof(...types.map((t) => byType(generation, t, flat, path, options)));
    }
    // const and enum values still have to satisfy a oneOf/anyOf next to them.
    if ((flat.const || flat.enum) && groups.length > 0) arbitrary = arbitrary.filter((v) => isValid(nodes, v));
    if (flat.not.length > 0) arbitrary = arbitrary.filter((v) => !flat.not.some((n) => matches(generation, n, v)));
    return arbitrary;
  }

  return {
    forPointer: (pointer, options) => forNodes([nodeAt(document, pointer)], [], options),
    forNodes: (nodes, path, options) => forNodes(nodes, path, options),
    isValid,
    flatten: (nodes) => flatten(document, nodes),
    document,
    validator,
  };
}

/** Whether a value matches a `not` schema: directly for const and enum, else with Ajv. */
function matches(gen: Generation, node: SchemaNode, value: unknown): boolean {
  const s = node.schema;
  if (typeof s === "object" && Object.keys(s).every((k) => k === "const" || k === "enum" || k === "description")) {
    if ("const" in s) return canonicalJson(s.const) === canonicalJson(value);
    return (s.enum as unknown[]).some((e) => canonicalJson(e) === canonicalJson(value));
  }
  return gen.isValid([node], value);
}

function byType(
  gen: Generation,
  type: JsonType,
  flat: FlatSchema,
  path: ValuePath,
  options: SchemaArbitraryOptions,
): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringArbitrary(flat);
    case "integer":
      return integerArbitrary(flat);
    case "number":
      return numberArbitrary(flat);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayArbitrary(gen, flat, path, options);
    case "object":
      return objectArbitrary(gen, flat, path, options);
  }
}

function arrayArbitrary(
  gen: Generation,
  flat: FlatSchema,
  path: ValuePath,
  options: SchemaArbitraryOptions,
): fc.Arbitrary<unknown[]> {
  const item = flat.items ? gen.forNodes(flat.items, [...path, "*"], options) : fc.jsonValue({ maxDepth: 1 });
  const minLength = flat.minItems ?? 0;
  const maxLength = Math.min(flat.maxItems ?? minLength + defaultSpan, minLength + defaultSpan);
  return flat.uniqueItems
    ? fc.uniqueArray(item, { minLength, maxLength, selector: canonicalJson })
    : fc.array(item, { minLength, maxLength });
}

function objectArbitrary(
  gen: Generation,
  flat: FlatSchema,
  path: ValuePath,
  options: SchemaArbitraryOptions,
): fc.Arbitrary<Record<string, unknown>> {
  const direction = options.direction ?? "request";
  const names = [...flat.properties.keys()].filter((name) => {
    const nodes = flat.properties.get(name) ?? [];
    if (isNever(nodes)) return false;
    const child = gen.flatten(nodes);
    return !(direction === "request" ? child.readOnly : child.writeOnly);
  });
  for (const name of flat.required) {
    if (!names.includes(name) && !flat.properties.has(name))
      throw new Error(`required property ${name} has no schema at ${path.join(".")}`);
  }
  const model = Object.fromEntries(
    names.map((name) => [name, gen.forNodes(flat.properties.get(name) ?? [], [...path, name], options)]),
  );
  let arbitrary: fc.Arbitrary<Record<string, unknown>> = fc
    .record(model, { requiredKeys: names.filter((n) => flat.required.has(n)) })
    .map((o) => ({ ...o }));
  const additional = flat.additionalProperties;
  if (additional) {
    const key = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !flat.properties.has(k));
    const extra = fc.dictionary(key, gen.forNodes(additional, [...path, "*"], options), {
      maxKeys: 3,
      noNullPrototype: true,
    });
    arbitrary = fc.tuple(arbitrary, extra).map(([known, more]) => withProperties(known, more));
  }
  const { minProperties = 0, maxProperties = Infinity } = flat;
  if (minProperties > 0 || maxProperties < Infinity) {
    arbitrary = arbitrary.filter(
      (o) => Object.keys(o).length >= minProperties && Object.keys(o).length <= maxProperties,
    );
  }
  return arbitrary;
}

/** A copy of `target` with `more` added as own properties (also `__proto__`, which `=` would not add). */
export function withProperties(
  target: Record<string, unknown>,
  more: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...target };
  for (const [k, v] of Object.entries(more))
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
