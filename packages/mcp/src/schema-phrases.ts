/**
 * The rules of JSON Schema keywords in words, for a host whose subset cannot carry them (`--client`): the words go
 * into the description of the schema that had them, as Anthropic's SDKs do with what strict tool use leaves out.
 */
import type { Json, JsonObject } from "./tool-types.js";

/** Keywords that say nothing a caller must follow (or are said elsewhere): dropped without words. */
export const silentKeywords = new Set([
  "title",
  "$comment",
  "readOnly",
  "writeOnly",
  "deprecated",
  "default",
  "examples",
  "x-references",
  "x-secret",
]);

const range = (low: Json | undefined, high: Json | undefined, unit: string): string | undefined => {
  if (low !== undefined && high !== undefined) return `${low} to ${high}${unit}`;
  if (low !== undefined) return `at least ${low}${unit}`;
  if (high !== undefined) return `at most ${high}${unit}`;
  return undefined;
};

/** The words of the keywords a host drops, one phrase each (lengths and ranges as one). */
export function phrasesOf(dropped: JsonObject): string[] {
  const {
    minLength,
    maxLength,
    minimum,
    maximum,
    exclusiveMinimum,
    exclusiveMaximum,
    minItems,
    maxItems,
    minProperties,
    maxProperties,
    ...rest
  } = dropped;
  const phrases = [
    range(minLength, maxLength, " characters"),
    range(minimum, maximum, ""),
    exclusiveMinimum === undefined ? undefined : `more than ${exclusiveMinimum}`,
    exclusiveMaximum === undefined ? undefined : `less than ${exclusiveMaximum}`,
    range(minItems, maxItems, " items"),
    range(minProperties, maxProperties, " fields"),
  ];
  for (const [keyword, value] of Object.entries(rest)) {
    if (silentKeywords.has(keyword)) continue;
    phrases.push(phraseOf(keyword, value));
  }
  return phrases.filter((p): p is string => p !== undefined);
}

/** One keyword's rule in words. */
function phraseOf(keyword: string, value: Json): string {
  const rules = typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  switch (keyword) {
    case "pattern":
      return `matching the regular expression \`${String(value)}\``;
    case "format":
      return `in the ${String(value)} format`;
    case "multipleOf":
      return `a multiple of ${value}`;
    case "uniqueItems":
      return value === true ? "no item twice" : "items may repeat";
    case "additionalProperties":
      return value === false ? "no fields but those listed" : `other fields as ${JSON.stringify(value)}`;
    case "x-search-terms":
      return `at most ${rules.maxTypeTerms} \`${rules.typePrefix}\` term and ${rules.maxTerms} other terms, separated by spaces`;
    default:
      return `${keyword}: ${JSON.stringify(value)}`;
  }
}

/** A description with the rules a host could not carry, and an example, after it. */
export function describedWith(description: Json | undefined, phrases: string[], example: Json | undefined): string {
  const parts = [typeof description === "string" ? description : ""];
  if (phrases.length > 0) parts.push(`Also required: ${phrases.join("; ")}.`);
  if (example !== undefined)
    parts.push(`Example: \`${typeof example === "string" ? example : JSON.stringify(example)}\`.`);
  return parts.filter(Boolean).join(" ");
}
