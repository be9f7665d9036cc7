/** Exact google.type.Decimal strings: the grammar, normalization and comparison, never through floating point. */
export { compareDecimals, type DecimalParts, isDecimal, normalizeDecimal, parseDecimal } from "./decimal.js";
export { maxDecimalLength, sumDecimals } from "./decimal-sum.js";
