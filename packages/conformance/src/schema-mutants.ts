/**
 * Values that break exactly one constraint of a schema, derived from its keywords: one mutator per keyword
 * (type, const, enum, not, pattern, minLength, maxLength, minimum/maximum, required, additionalProperties,
 * minProperties, minItems, maxItems, uniqueItems), applied at every place of the value the schema describes
 * (properties and array items, through $ref and allOf). The rest of the value is generated valid, so the one
 * broken constraint is the only reason to refuse it. The mutators are in leaf-mutators.ts (the value itself) and
 * object-mutators.ts (an object or array as a whole); this module walks the schema and puts their values in place.
 */
import fc from "fast-check";
import { leafMutators } from "./leaf-mutators.js";
import type { Mutant, MutantOptions } from "./mutant-values.js";
import { objectMutators } from "./object-mutators.js";
import { type SchemaArbitraries, type ValuePath, withProperties } from "./schema-arbitrary.js";
import { type FlatSchema, isNever, type SchemaNode } from "./schema-node.js";

export type { Mutant, MutantOptions } from "./mutant-values.js";

/** One constraint of the schema that can be broken, and an arbitrary of values that break it. */
export interface MutationSite {
  /** Where the constraint applies: property names, `*` for any array item. */
  at: ValuePath;
  keyword: string;
  arbitrary: fc.Arbitrary<Mutant>;
  /**
   * For a pattern: every near miss of one valid value — one character of the pattern's own alphabet added or
   * replaced at either end — that the pattern refuses (such as `-2.5` for a non-negative Decimal), each in a
   * whole value. The boundaries of a grammar, tried exhaustively rather than by chance.
   */
  nearMisses?: fc.Arbitrary<Mutant>[];
}

/** Every constraint of the schema at the nodes that one value can break, each with its arbitrary of mutants. */
export function mutationSites(
  arbitraries: SchemaArbitraries,
  nodes: readonly SchemaNode[],
  options: MutantOptions = {},
): MutationSite[] {
  const carrier = options.carrier ?? "json";
  const sites: MutationSite[] = [];

  const walk = (
    at: ValuePath,
    here: readonly SchemaNode[],
    embed: (leaf: fc.Arbitrary<Mutant>) => fc.Arbitrary<Mutant>,
  ): void => {
    const flat = arbitraries.flatten(here);
    const valid = arbitraries.forNodes(here, at, options);
    for (const [keyword, leaf, misses] of leafMutators(arbitraries, options, flat, valid, at)) {
      const wrap = (values: fc.Arbitrary<unknown>) => embed(values.map((value) => ({ value, path: [], keyword })));
      sites.push({
        at,
        keyword,
        arbitrary: wrap(leaf),
        ...(misses ? { nearMisses: misses.map((m) => wrap(fc.constant(m))) } : {}),
      });
    }
    if (carrier !== "json") return;
    const writable = childProperties(flat).map(([name]) => name);
    for (const [keyword, leaf] of objectMutators(flat, valid, writable)) {
      sites.push({ at: [...at, ...keyword.at], keyword: keyword.name, arbitrary: embed(leaf) });
    }
    for (const [name, child] of childProperties(flat)) {
      walk([...at, name], child, (leaf) =>
        embed(
          fc.tuple(valid, leaf).map(([parent, m]) => ({
            ...m,
            value: withProperties(parent as Record<string, unknown>, { [name]: m.value }),
            path: [name, ...m.path],
          })),
        ),
      );
    }
    if (flat.items && !isNever(flat.items)) {
      const nonEmpty = (valid as fc.Arbitrary<unknown[]>).filter((a) => Array.isArray(a) && a.length > 0);
      walk([...at, "*"], flat.items, (leaf) =>
        embed(
          fc.tuple(nonEmpty, fc.nat(), leaf).map(([array, i, m]) => {
            const index = i % array.length;
            const value = [...array];
            value[index] = m.value;
            return { ...m, value, path: [index, ...m.path] };
          }),
        ),
      );
    }
  };

  /** The properties a request can carry (not `false`, not readOnly in requests). */
  const childProperties = (flat: FlatSchema): [string, SchemaNode[]][] =>
    [...flat.properties].filter(([, child]) => {
      if (isNever(child)) return false;
      const f = arbitraries.flatten(child);
      return !((options.direction ?? "request") === "request" ? f.readOnly : f.writeOnly);
    });

  walk([], nodes, (leaf) => leaf);
  return sites;
}
