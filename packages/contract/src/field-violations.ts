/**
 * Every validator problem named alike: express-openapi-validator's error items and Ajv's errors become field
 * violations with the same field paths (`volumeIds[2]`, `priceHr.value`, `response.body.results[3].cluster.id`)
 * and reasons, never the offending value, and at most {@link maxFieldViolations} of them.
 */
import type { ErrorObject } from "ajv";
import type { FieldViolation } from "./api-error.js";

/** Most field violations one error body lists, so that a huge invalid body cannot make a huge answer. */
export const maxFieldViolations = 100;

/**
 * Turns a validator path into the `field` of a violation: `/body/volumeIds/2` → `volumeIds[2]`,
 * `/body/priceHr/value` → `priceHr.value`, `/query/query` → `query`, `/params/id` → `id`,
 * `/headers/authorization` → `header.authorization`, `/body` → `` (the body as a whole).
 */
export function fieldPath(path: string): string {
  const parts = path
    .replace(/^\.?\/?/, "")
    .split(/[/.]/)
    .filter(Boolean);
  const [where, ...rest] = parts;
  const prefix = where === "headers" ? "header." : "";
  let out = "";
  for (const part of where === "body" ||
  where === "query" ||
  where === "params" ||
  where === "headers" ||
  where === "response"
    ? rest
    : parts) {
    out += /^\d+$/.test(part) ? `[${part}]` : out === "" ? part : `.${part}`;
  }
  return where === "response" ? `response.body${out ? (out.startsWith("[") ? out : `.${out}`) : ""}` : prefix + out;
}

/** One problem as express-openapi-validator reports it; the compiled contract reports its problems in this shape too. */
export interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

/**
 * Ajv errors as express-openapi-validator turns them into items (its `augmentAjvErrors` and
 * `ajvErrorsToValidatorError`), so that both validators name a problem alike: an enum error lists the allowed
 * values, and a missing or unknown property is named at the end of the path. `prefix` goes before each path
 * (`/body`, `/response`).
 */
export function ajvErrorItems(errors: readonly ErrorObject[], prefix = ""): ValidatorErrorItem[] {
  return errors.map((e) => {
    const params = e.params as {
      allowedValues?: unknown[];
      missingProperty?: string;
      additionalProperty?: string;
      unevaluatedProperty?: string;
    };
    const message =
      e.keyword === "enum" && params.allowedValues
        ? `${e.message}: ${params.allowedValues.join(", ")}`
        : (e.message ?? "is invalid");
    const child = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
    return {
      path: `${prefix}${e.instancePath}${child === undefined ? "" : `/${child}`}`,
      message,
      errorCode: `${e.keyword}.openapi.validation`,
    };
  });
}

/**
 * Whether an item is Ajv's error for an `if` whose `then` failed (`must match "then" schema`): the `then`'s own
 * errors name the problem, and the `if`s of `boundedSchemas` are not the spec's.
 */
const isIfItem = (item: ValidatorErrorItem) => item.errorCode === "if.openapi.validation";

/**
 * The field violations of validator items, without Ajv's `if` errors: the first {@link maxFieldViolations} mapped,
 * and how many there are in all. Both validators map their errors here, so that neither maps (nor sends) more.
 */
export function toFieldViolations(items: readonly ValidatorErrorItem[]): {
  violations: FieldViolation[];
  count: number;
} {
  const violations: FieldViolation[] = [];
  let count = 0;
  for (const item of items) {
    if (isIfItem(item)) continue;
    if (count++ < maxFieldViolations) violations.push(toFieldViolation(item));
  }
  return { violations, count };
}

/** Maps one validator error item onto a field violation; never repeats the offending value. */
export function toFieldViolation(item: ValidatorErrorItem): FieldViolation {
  const reason = item.errorCode?.replace(/\.openapi\.(validation|requestValidation)$/, "") ?? "invalid";
  let field = fieldPath(item.path ?? "");
  let description = item.message ?? "is invalid";
  // Ajv says which items of an array are duplicates only in its message: name the later one.
  const dup = /duplicate items \(items ## (\d+) and (\d+) are identical\)/.exec(description);
  if (dup) {
    field = `${field}[${Math.max(Number(dup[1]), Number(dup[2]))}]`;
    description = `duplicates item ${Math.min(Number(dup[1]), Number(dup[2]))}; each item may appear only once`;
  }
  // Ajv's message for `not` ("must NOT be valid") says nothing to a caller; in this spec `not` excludes values.
  if (reason === "not") description = "is not an allowed value here";
  // Ajv names an unknown property in the message; point the field at it.
  const extra = /must NOT have additional properties|Unknown query parameter/.test(description)
    ? /'([^']+)'/.exec(description)
    : null;
  if (extra && !field.endsWith(extra[1] ?? "")) field = field ? `${field}.${extra[1]}` : (extra[1] ?? "");
  // The last step of a missing or unknown property is a property name, even when it is made of digits.
  if (reason === "required" || reason === "additionalProperties")
    field = field.replace(/\[(\d+)\]$/, (_m, name: string, at: number) => (at === 0 ? name : `.${name}`));
  return { field, description, reason };
}
