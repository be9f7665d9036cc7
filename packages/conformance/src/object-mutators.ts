/**
 * Mutators of an object or an array as a whole, each reaching one place in it: a required property removed, an
 * unknown property added, too few properties, an item repeated. Only a JSON body can carry them.
 */
import fc from "fast-check";
import type { Mutant } from "./mutant-values.js";
import { type ValuePath, withProperties } from "./schema-arbitrary.js";
import type { FlatSchema } from "./schema-node.js";
import { isWellFormed } from "./string-arbitrary.js";

/**
 * Names an unknown property can have so that a field path (`a.b`, `a[2]`) still names it: express-openapi-validator
 * appends the raw name to the JSON pointer of its object, so an empty name, or one with `/`, `.`, `[` or `]`,
 * cannot be told apart from a path (a known limitation, not generated).
 */
const writableName = (name: string): boolean => name !== "" && !/[/.[\]]/.test(name) && isWellFormed(name);

/** Mutators that reach into an object or array, in a body only: required, additionalProperties, minProperties, uniqueItems. */
export function objectMutators(
  flat: FlatSchema,
  valid: fc.Arbitrary<unknown>,
  writable: readonly string[],
): [{ name: string; at: ValuePath }, fc.Arbitrary<Mutant>][] {
  const out: [{ name: string; at: ValuePath }, fc.Arbitrary<Mutant>][] = [];
  const objects = valid as fc.Arbitrary<Record<string, unknown>>;
  for (const name of flat.required) {
    if (!writable.includes(name)) continue;
    out.push([
      { name: "required", at: [name] },
      objects.map((o) => {
        const { [name]: _removed, ...rest } = o;
        return { value: rest, path: [name], keyword: "required" };
      }),
    ]);
  }
  if (flat.additionalProperties === false) {
    const unknown = fc
      .string({ minLength: 1, maxLength: 16 })
      .filter((k) => !flat.properties.has(k) && writableName(k));
    out.push([
      { name: "additionalProperties", at: [] },
      fc.tuple(objects, unknown, fc.jsonValue({ maxDepth: 1 })).map(([o, key, v]) => ({
        value: withProperties(o, { [key]: v }),
        path: [key],
        keyword: "additionalProperties",
      })),
    ]);
  }
  if (flat.minProperties !== undefined && flat.minProperties > flat.required.size) {
    const keep = flat.minProperties - 1;
    out.push([
      { name: "minProperties", at: [] },
      objects.map((o) => ({
        value: Object.fromEntries(
          Object.entries(o)
            .sort(([a], [b]) => Number(flat.required.has(b)) - Number(flat.required.has(a)))
            .slice(0, keep),
        ),
        path: [],
        keyword: "minProperties",
      })),
    ]);
  }
  if (flat.uniqueItems) {
    const arrays = (valid as fc.Arbitrary<unknown[]>).filter(
      (a) => Array.isArray(a) && a.length > 0 && a.length < (flat.maxItems ?? Infinity),
    );
    out.push([
      { name: "uniqueItems", at: [] },
      fc.tuple(arrays, fc.nat(), fc.nat()).map(([a, i, j]) => {
        const from = i % a.length;
        const to = from + 1 + (j % (a.length - from));
        const value = [...a];
        value.splice(to, 0, structuredClone(a[from]));
        return { value, path: [to], keyword: "uniqueItems" };
      }),
    ]);
  }
  return out;
}
