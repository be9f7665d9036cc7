/**
 * fast-check arbitraries of the numbers a flat schema accepts: integers within its bounds and format (int32, or
 * every integer a JSON number holds exactly), and doubles within its bounds, exclusive ones kept out.
 */
import { int32Range } from "@compute-api/contract";
import fc from "fast-check";
import type { FlatSchema } from "./schema-node.js";

/** Integers within the schema's bounds and format. */
export function integerArbitrary(flat: FlatSchema): fc.Arbitrary<number> {
  const bounded = flat.format === "int32" ? int32Range : { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
  const min = Math.max(
    bounded.min,
    Math.ceil(flat.minimum ?? -Infinity),
    Math.floor((flat.exclusiveMinimum ?? -Infinity) + 1),
  );
  const max = Math.min(
    bounded.max,
    Math.floor(flat.maximum ?? Infinity),
    Math.ceil((flat.exclusiveMaximum ?? Infinity) - 1),
  );
  return fc.integer({ min, max });
}

/** Finite doubles within the schema's bounds (never -0). */
export function numberArbitrary(flat: FlatSchema): fc.Arbitrary<number> {
  return fc
    .double({
      noNaN: true,
      noDefaultInfinity: true,
      ...(flat.minimum === undefined ? {} : { min: flat.minimum }),
      ...(flat.maximum === undefined ? {} : { max: flat.maximum }),
    })
    .filter(
      (n) =>
        !(n <= (flat.exclusiveMinimum ?? -Infinity)) &&
        !(n >= (flat.exclusiveMaximum ?? Infinity)) &&
        !Object.is(n, -0),
    );
}
