/**
 * This check's keyword rules (rules.ts), applied to oasdiff's structural diff: operation by operation, each request
 * body, parameter and response schema, through `properties`, `items`, `additionalProperties`, `allOf`, `anyOf` and
 * `oneOf` (not into `not`, whose keywords mean the opposite). A rule oasdiff itself knows is left to oasdiff.
 */
import type { Finding } from "./find.js";
import { locate, parameterTokens, type SpecFiles } from "./locate.js";
import type { Json } from "./prepare.js";
import { type KeywordRule, keywordRules } from "./rules.js";

type Obj = { [key: string]: Json };

const obj = (v: Json | undefined): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
const entries = (v: Json | undefined): [string, Json][] => Object.entries(obj(v) ?? {});

/** Where a schema diff sits: its direction, whether it is a body's root, a deeper property or a parameter's. */
interface Place {
  direction: "request" | "response";
  kind: "body" | "property" | "parameter";
  /** Pointer tokens of the schema in the current document. */
  tokens: (string | number)[];
  /** The property path below the body or parameter, as oasdiff prints it (`volumeIds/items`). */
  field: string[];
}

/** JSON Schema's names of the keys oasdiff's diff uses. */
const keywordNames: Record<string, string> = {
  minProps: "minProperties",
  maxProps: "maxProperties",
  additionalPropertiesAllowed: "additionalProperties",
};

/** The two sides of a keyword's change: `{ from, to }`, or for a subschema an added, deleted or changed marker. */
function sides(change: Json | undefined): [unknown, unknown] {
  const c = obj(change);
  if (!c) return [undefined, undefined];
  if ("from" in c || "to" in c) return [c.from ?? null, c.to ?? null];
  if (c.schemaAdded) return [null, {}];
  if (c.schemaDeleted) return [{}, null];
  return [{}, {}];
}

/** How a keyword changed, in words: `from \`64\` to \`10\``, or for a subschema `added` or `changed`. */
function change(from: unknown, to: unknown): string {
  if (typeof to === "object" && to !== null) return from === null ? "was added" : "was changed";
  const shown = (v: unknown) => (v === null ? "none" : `\`${String(v)}\``);
  return `went from ${shown(from)} to ${shown(to)}`;
}

type Visit = (rule: KeywordRule, place: Place, from: unknown, to: unknown) => void;

function walkSchema(diff: Json | undefined, place: Place, visit: Visit): void {
  const d = obj(diff);
  if (!d) return;
  for (const rule of keywordRules) {
    if (rule.direction !== place.direction || !(rule.keyword in d)) continue;
    const [from, to] = sides(d[rule.keyword]);
    if (rule.applies(from, to)) visit(rule, place, from, to);
  }
  const deeper = (tokens: (string | number)[], field: string, sub: Json | undefined) =>
    walkSchema(
      sub,
      {
        ...place,
        kind: place.kind === "parameter" ? "parameter" : "property",
        tokens: [...place.tokens, ...tokens],
        field: field ? [...place.field, field] : place.field,
      },
      visit,
    );
  for (const [name, sub] of entries(obj(d.properties)?.modified)) deeper(["properties", name], name, sub);
  deeper(["items"], "items", d.items);
  deeper(["additionalProperties"], "additionalProperties", d.additionalProperties);
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const modified = obj(d[key])?.modified;
    for (const m of Array.isArray(modified) ? modified : []) {
      const index = obj(obj(m)?.revision)?.index;
      deeper([key, typeof index === "number" ? index : 0], "", obj(m)?.diff);
    }
  }
}

/** The findings of the keyword rules that oasdiff (whose rule ids are `known`) does not have. */
export function keywordFindings(diff: Json, files: SpecFiles, known: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  const doc = files.current.doc as { paths: Record<string, Record<string, { operationId?: string }>> };
  for (const [apiPath, item] of entries(obj(obj(diff)?.paths)?.modified)) {
    for (const [verb, op] of entries(obj(obj(item)?.operations)?.modified)) {
      const method = verb.toLowerCase();
      const operationId = doc.paths[apiPath]?.[method]?.operationId;
      const operation = `${verb} ${apiPath}${operationId ? ` (${operationId})` : ""}`;
      const at = ["paths", apiPath, method];
      const visit: Visit = (rule, place, from, to) => {
        const id = `${place.direction}-${place.kind}-${rule.name}`;
        if (known.has(id)) return;
        const keyword = keywordNames[rule.keyword] ?? rule.keyword;
        const field = place.field.length > 0 ? ` of \`${place.field.join("/")}\`` : "";
        findings.push({
          verdict: rule.verdict,
          rule: id,
          operation,
          location: locate(files.current, [...place.tokens, keyword]),
          text: `${rule.catches}: ${keyword}${field} ${change(from, to)}.`,
        });
      };
      const body = obj(obj(obj(op)?.requestBody)?.content)?.modified;
      for (const [type, media] of entries(body)) {
        const tokens = [...at, "requestBody", "content", type, "schema"];
        walkSchema(obj(media)?.schema, { direction: "request", kind: "body", tokens, field: [] }, visit);
      }
      for (const [where, params] of entries(obj(obj(op)?.parameters)?.modified)) {
        for (const [name, param] of entries(params)) {
          const tokens = [...(parameterTokens(doc, apiPath, method, where, name) ?? [...at, "parameters"]), "schema"];
          walkSchema(obj(param)?.schema, { direction: "request", kind: "parameter", tokens, field: [name] }, visit);
        }
      }
      for (const [status, response] of entries(obj(obj(op)?.responses)?.modified)) {
        for (const [type, media] of entries(obj(obj(obj(response)?.content)?.modified))) {
          const tokens = [...at, "responses", status, "content", type, "schema"];
          walkSchema(obj(media)?.schema, { direction: "response", kind: "body", tokens, field: [] }, visit);
        }
      }
    }
  }
  return findings;
}
