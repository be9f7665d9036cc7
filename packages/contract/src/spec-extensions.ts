/**
 * The `x-` extensions of the document (openapi/README.md lists them), as Ajv keywords: Ajv in strict mode refuses a
 * keyword it does not know, and a rule the document states in an extension is checked here like any schema keyword,
 * so that every validator compiled from the document (the gateway's, the MSW handlers', the runner's) holds it.
 * - `x-search-terms` (a string schema): the value is terms split at white space, at most `maxTypeTerms` of them
 *   starting with `typePrefix` (any case) and at most `maxTerms` others, each counted as written. A violation is
 *   reported under the reason the servers give it: `type-repeated`, `too-many-terms`.
 * - `x-secret`, `x-references`: annotations (a value shown once; the resource an identifier names), checked by no
 *   validator. `x-max-request-body-bytes` sits at the top of the document, which Ajv holds as a schema.
 */
import type { FuncKeywordDefinition, KeywordDefinition } from "ajv";

/** The rules of `x-search-terms`. */
interface SearchTerms {
  maxTerms: number;
  typePrefix: string;
  maxTypeTerms: number;
}

type Problem = { keyword: string; message: string; params: Record<string, number> };

/** What is wrong with the terms of a value, or undefined. */
export function searchTermsProblem(value: string, rules: SearchTerms): Problem | undefined {
  const words = value.split(/\s+/u).filter((w) => w !== "");
  const prefix = rules.typePrefix.toLowerCase();
  const typeTerms = words.filter((w) => w.toLowerCase().startsWith(prefix)).length;
  const terms = words.length - typeTerms;
  if (typeTerms > rules.maxTypeTerms) {
    const most = rules.maxTypeTerms === 1 ? "one" : String(rules.maxTypeTerms);
    return {
      keyword: "type-repeated",
      message: `may hold at most ${most} \`${rules.typePrefix}\` term${rules.maxTypeTerms === 1 ? "" : "s"}`,
      params: { count: typeTerms, max: rules.maxTypeTerms },
    };
  }
  if (terms > rules.maxTerms) {
    return {
      keyword: "too-many-terms",
      message: `holds ${terms} terms besides its \`${rules.typePrefix}\` term; at most ${rules.maxTerms} are allowed`,
      params: { count: terms, max: rules.maxTerms },
    };
  }
  return undefined;
}

const searchTermsKeyword: FuncKeywordDefinition = {
  keyword: "x-search-terms",
  type: "string",
  schemaType: "object",
  errors: true,
  metaSchema: {
    type: "object",
    required: ["maxTerms", "typePrefix", "maxTypeTerms"],
    properties: {
      maxTerms: { type: "integer", minimum: 0 },
      typePrefix: { type: "string", minLength: 1 },
      maxTypeTerms: { type: "integer", minimum: 0 },
    },
  },
  validate: function validate(rules: SearchTerms, value: string) {
    const problem = searchTermsProblem(value, rules);
    (validate as { errors?: unknown[] }).errors = problem ? [problem] : [];
    return problem === undefined;
  },
};

/** Every `x-` keyword of the document, for `ajv.addKeyword`. */
export const extensionKeywords: readonly KeywordDefinition[] = [
  searchTermsKeyword,
  { keyword: "x-secret", schemaType: "boolean" },
  { keyword: "x-references", schemaType: "string" },
  { keyword: "x-max-request-body-bytes", schemaType: "number" },
];
