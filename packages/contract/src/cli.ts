/** What the three commands (compute-stub, compute-gateway, compute-conformance) share on their command lines. */
import { InvalidArgumentError } from "commander";

/**
 * A commander argument parser of a whole number from `min` to `max` (digits only: no sign, fraction or
 * exponent); anything else is refused with one wording, whichever command reads it.
 */
export function integerFlag(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}.`);
    return n;
  };
}
