/**
 * The integer formats of OpenAPI, as Ajv formats: the one definition the compiled contract, the stub's validator
 * (express-openapi-validator's `formats`) and the conformance runner's generators use.
 * @see https://spec.openapis.org/registry/format/int32
 */

/** The values of `format: int32`: a signed 32-bit integer. */
export const int32Range = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

/** Ajv's `int32` format: an integer within {@link int32Range}. */
export const int32Format = {
  type: "number" as const,
  validate: (n: number): boolean => Number.isInteger(n) && n >= int32Range.min && n <= int32Range.max,
};

/** Ajv's `int64` format: every integer a JSON number holds exactly. */
export const int64Format = { type: "number" as const, validate: (n: number): boolean => Number.isSafeInteger(n) };
