/**
 * The rule table of `npm run check:breaking`: the oasdiff rules whose level it changes, and the rules it adds where
 * oasdiff has none. Every other oasdiff rule keeps its own level (error → error, warning → warning, info → quiet);
 * `npx oasdiff checks` lists them. baseline/README.md shows the same table (a test keeps the two in step).
 */

/** What a finding does to the check: an error fails it (unless the major version was raised), a warning is printed. */
export type Verdict = "error" | "warning";

/** An oasdiff rule whose level this check changes, and why. */
export interface LevelOverride {
  level: "ERR" | "WARN";
  why: string;
}

const narrowsRequest = "a bound where there was none rejects values the released spec accepted";
const undecidable =
  "whether the new pattern accepts every value the old one did is not decided, so any change counts as a narrowing";

/** oasdiff rules raised to an error (oasdiff classes them as warnings or information). */
export const levelOverrides: Readonly<Record<string, LevelOverride>> = {
  "request-parameter-removed": {
    level: "ERR",
    why: "the server rejects a parameter the spec does not name (unknown query parameters are refused)",
  },
  "request-parameter-removed-with-deprecation": {
    level: "ERR",
    why: "deprecation warns callers, it does not keep them working",
  },
  "request-property-removed": {
    level: "ERR",
    why: "request bodies reject unknown fields (additionalProperties: false)",
  },
  "response-optional-property-removed": { level: "ERR", why: "a client that reads the field loses it" },
  "response-non-success-status-removed": { level: "ERR", why: "a client that handles the status no longer gets it" },
  "optional-response-header-removed": { level: "ERR", why: "a client that reads the header loses it" },
  "api-removed-with-deprecation": { level: "ERR", why: "deprecation warns callers, it does not keep them working" },
  "api-path-removed-with-deprecation": {
    level: "ERR",
    why: "deprecation warns callers, it does not keep them working",
  },
  "request-parameter-property-type-changed": { level: "ERR", why: "a type change breaks callers like any other" },
  "request-property-pattern-changed": { level: "ERR", why: undecidable },
  "request-parameter-pattern-changed": { level: "ERR", why: undecidable },
  "request-body-max-length-set": { level: "ERR", why: narrowsRequest },
  "request-property-max-length-set": { level: "ERR", why: narrowsRequest },
  "request-parameter-max-length-set": { level: "ERR", why: narrowsRequest },
  "request-body-max-set": { level: "ERR", why: narrowsRequest },
  "request-property-max-set": { level: "ERR", why: narrowsRequest },
  "request-parameter-max-set": { level: "ERR", why: narrowsRequest },
  "request-body-min-set": { level: "ERR", why: narrowsRequest },
  "request-property-min-set": { level: "ERR", why: narrowsRequest },
  "request-parameter-min-set": { level: "ERR", why: narrowsRequest },
  "request-body-min-items-set": { level: "ERR", why: narrowsRequest },
  "request-property-min-items-set": { level: "ERR", why: narrowsRequest },
  "request-parameter-min-items-set": { level: "ERR", why: narrowsRequest },
  "request-body-exclusive-max-set": { level: "ERR", why: narrowsRequest },
  "request-property-exclusive-max-set": { level: "ERR", why: narrowsRequest },
  "request-parameter-exclusive-max-set": { level: "ERR", why: narrowsRequest },
  "request-body-exclusive-min-set": { level: "ERR", why: narrowsRequest },
  "request-property-exclusive-min-set": { level: "ERR", why: narrowsRequest },
  "request-parameter-exclusive-min-set": { level: "ERR", why: narrowsRequest },
};

/** The `--severity-levels` file oasdiff reads: one `rule LEVEL` line per override. */
export function severityLevels(): string {
  return Object.entries(levelOverrides)
    .map(([id, o]) => `${id} ${o.level}`)
    .join("\n");
}

/**
 * One side of a changed keyword in oasdiff's structural diff: its value, `null` when the keyword is absent, and for a
 * subschema keyword (`not`) `{}` when present.
 */
type Side = unknown;

/** A rule of this check's own: a keyword change oasdiff's structural diff shows but none of its rules reports. */
export interface KeywordRule {
  /** The rule id without its place: `request-body-`, `request-property-`, `request-parameter-`, `response-…`. */
  name: string;
  /** The key in oasdiff's schema diff. */
  keyword: string;
  direction: "request" | "response";
  verdict: Verdict;
  /** What it catches, for the README's table. */
  catches: string;
  applies(from: Side, to: Side): boolean;
}

const num = (v: Side): v is number => typeof v === "number";
const absent = (v: Side): boolean => v === null || v === undefined;

/** The keyword rules, applied wherever a request or response schema is reached from an operation. */
export const keywordRules: readonly KeywordRule[] = [
  {
    name: "max-items-decreased",
    keyword: "maxItems",
    direction: "request",
    verdict: "error",
    catches: "a request array's maxItems lowered",
    applies: (from, to) => num(from) && num(to) && to < from,
  },
  {
    name: "max-items-set",
    keyword: "maxItems",
    direction: "request",
    verdict: "error",
    catches: "a maxItems added to a request array that had none",
    applies: (from, to) => absent(from) && num(to),
  },
  {
    name: "min-properties-increased",
    keyword: "minProps",
    direction: "request",
    verdict: "error",
    catches: "a request object's minProperties raised",
    applies: (from, to) => num(to) && to > (num(from) ? from : 0),
  },
  {
    name: "max-properties-decreased",
    keyword: "maxProps",
    direction: "request",
    verdict: "error",
    catches: "a request object's maxProperties lowered or added",
    applies: (from, to) => num(to) && (absent(from) || (num(from) && to < from)),
  },
  {
    name: "unique-items-set",
    keyword: "uniqueItems",
    direction: "request",
    verdict: "error",
    catches: "uniqueItems turned on for a request array",
    applies: (from, to) => to === true && from !== true,
  },
  {
    name: "multiple-of-changed",
    keyword: "multipleOf",
    direction: "request",
    verdict: "error",
    catches: "a request number's multipleOf added, or changed to one the old one is not a multiple of",
    applies: (from, to) => num(to) && (!num(from) || from % to !== 0),
  },
  {
    name: "additional-properties-disallowed",
    keyword: "additionalPropertiesAllowed",
    direction: "request",
    verdict: "error",
    catches: "additionalProperties: false added to a request object",
    applies: (from, to) => to === false && from !== false,
  },
  {
    name: "not-changed",
    keyword: "not",
    direction: "request",
    verdict: "error",
    catches: "a request schema's `not` added or changed (it may exclude values the released spec accepted)",
    applies: (_from, to) => !absent(to),
  },
  {
    name: "max-items-increased",
    keyword: "maxItems",
    direction: "response",
    verdict: "error",
    catches: "a response array's maxItems raised or removed (clients may size for the old bound)",
    applies: (from, to) => num(from) && (absent(to) || (num(to) && to > from)),
  },
];
