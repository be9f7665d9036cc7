/**
 * Exact sums of google.type.Decimal values, for the cluster totals. Digits are added as BigInt, never as
 * floating point. The sum is written exactly without trailing zeros, in plain digits (`4`, `0.75`, `-1.5`,
 * `1000`), or as `12e70` when plain digits would not fit the characters a Decimal may have (Decimal.value's
 * `maxLength`, 64).
 * @see openapi/components/schemas/Decimal.yaml
 */
import { maxDecimalLength as longest } from "@compute-api/spec/facts";
import { parseDecimal } from "./decimal.js";

/** Longest `value` of a Decimal: Decimal.value's `maxLength` in the spec. */
export const maxDecimalLength: number = longest;

// Two terms whose leading digits lie further apart than this cannot have an exact sum of maxDecimalLength characters or
// fewer unless they cancel out; the bound keeps BigInt alignment cheap for values such as `1e999999999`.
const maxSpread = 4 * maxDecimalLength;

/** The exact sum of the decimal strings, or undefined when it cannot be written in maxDecimalLength characters. */
export function sumDecimals(values: readonly string[]): string | undefined {
  const terms = values.map(parseDecimal).filter((t) => t.sign !== 0);
  if (terms.length === 0) return "0";
  let low = terms[0]?.exponent ?? 0n;
  let high = low;
  for (const t of terms) {
    if (t.exponent < low) low = t.exponent;
    const lead = t.exponent + BigInt(t.coefficient.length);
    if (lead > high) high = lead;
  }
  if (high - low > BigInt(maxSpread)) return undefined;
  let total = 0n;
  for (const t of terms) total += BigInt(t.sign) * BigInt(t.coefficient) * 10n ** (t.exponent - low);
  return formatDecimal(total, low);
}

/** Writes `coefficient × 10^exponent` in plain digits, else with an exponent; undefined when over maxDecimalLength characters. */
function formatDecimal(coefficient: bigint, exponent: bigint): string | undefined {
  if (coefficient === 0n) return "0";
  const sign = coefficient < 0n ? "-" : "";
  let digits = (coefficient < 0n ? -coefficient : coefficient).toString();
  let exp = exponent;
  const zeros = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - zeros);
  exp += BigInt(zeros);
  let plain: string;
  if (exp >= 0n) plain = exp > BigInt(maxDecimalLength) ? "" : digits + "0".repeat(Number(exp));
  else if (-exp > BigInt(maxDecimalLength)) plain = "";
  else {
    const point = digits.length + Number(exp);
    plain = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${"0".repeat(-point)}${digits}`;
  }
  const scientific = exp === 0n ? digits : `${digits}e${exp}`;
  const best = [plain, scientific].find((s) => s !== "" && sign.length + s.length <= maxDecimalLength);
  return best === undefined ? undefined : sign + best;
}
