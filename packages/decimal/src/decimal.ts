/**
 * Helpers for google.type.Decimal strings (`{ "value": "2.5" }`). They work on the digits as text and never go
 * through floating point, so `0.1` stays `0.1` and `1e400` is as valid as `1`.
 * @see #/components/schemas/Decimal
 */

// The grammar of Decimal.value, with groups: sign, integer digits, their fraction, fraction-only digits, exponent.
const DECIMAL = /^([+-]?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?$/;

/** A decimal taken apart: its value is `sign × coefficient × 10^exponent`. */
export interface DecimalParts {
  /** -1, 0 or 1; zero has sign 0 whether it was written `-0` or `0`. */
  sign: -1 | 0 | 1;
  /** The significant digits, without leading or trailing zeros; `"0"` for zero. */
  coefficient: string;
  /** The power of ten the coefficient is scaled by; 0n for zero. */
  exponent: bigint;
}

interface Matched {
  sign: string;
  integer: string | undefined;
  fraction: string;
  exponent: string | undefined;
}

function match(value: string): Matched | undefined {
  const groups = DECIMAL.exec(value);
  if (!groups) return undefined;
  const [, sign = "", integer, integerFraction, fractionOnly, exponent] = groups;
  return { sign, integer, fraction: integerFraction ?? fractionOnly ?? "", exponent };
}

function matchOrThrow(value: string): Matched {
  const matched = match(value);
  if (!matched) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  return matched;
}

/** True when `value` follows the Decimal grammar: optional sign, digits with an optional fraction, optional exponent. */
export function isDecimal(value: string): boolean {
  return match(value) !== undefined;
}

/** Takes a decimal string apart exactly; throws a RangeError when it does not follow the Decimal grammar. */
export function parseDecimal(value: string): DecimalParts {
  const { sign, integer = "", fraction, exponent = "0" } = matchOrThrow(value);
  const digits = `${integer}${fraction}`.replace(/^0+/, "");
  const significant = digits.replace(/0+$/, "");
  if (significant === "") return { sign: 0, coefficient: "0", exponent: 0n };
  const trailingZeros = digits.length - significant.length;
  return {
    sign: sign === "-" ? -1 : 1,
    coefficient: significant,
    exponent: BigInt(exponent) - BigInt(fraction.length) + BigInt(trailingZeros),
  };
}

/**
 * The decimal the way the service stores it: a leading `+` dropped, `.5` → `0.5`, `5.` → `5`, `E` → `e`, and a
 * zero exponent (`e0`, `e+0`, `e-00`) dropped. Nothing else changes (`2.50` stays `2.50`).
 * @see #/paths/~1v1~1projects~1{projectId}~1cluster-machines~1{id}/patch
 */
export function normalizeDecimal(value: string): string {
  const { sign, integer, fraction, exponent } = matchOrThrow(value);
  const mantissa = fraction === "" ? (integer ?? "0") : `${integer ?? "0"}.${fraction}`;
  const scale = exponent === undefined || BigInt(exponent) === 0n ? "" : `e${exponent}`;
  return `${sign === "-" ? "-" : ""}${mantissa}${scale}`;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`, compared exactly (`"1.50"` equals `"15e-1"`). */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const left = parseDecimal(a);
  const right = parseDecimal(b);
  if (left.sign !== right.sign) return left.sign < right.sign ? -1 : 1;
  if (left.sign === 0) return 0;
  const magnitude = compareMagnitudes(left, right);
  return left.sign === 1 ? magnitude : negate(magnitude);
}

function compareMagnitudes(left: DecimalParts, right: DecimalParts): -1 | 0 | 1 {
  // The position of the leading digit decides, unless both lead at the same power of ten.
  const leftLead = left.exponent + BigInt(left.coefficient.length);
  const rightLead = right.exponent + BigInt(right.coefficient.length);
  if (leftLead !== rightLead) return leftLead < rightLead ? -1 : 1;
  const width = Math.max(left.coefficient.length, right.coefficient.length);
  const leftDigits = left.coefficient.padEnd(width, "0");
  const rightDigits = right.coefficient.padEnd(width, "0");
  if (leftDigits === rightDigits) return 0;
  return leftDigits < rightDigits ? -1 : 1;
}

function negate(order: -1 | 0 | 1): -1 | 0 | 1 {
  return order === 0 ? 0 : order === 1 ? -1 : 1;
}
