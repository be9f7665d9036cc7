/**
 * header_conformance: the headers the spec documents for a response (such as `Retry-After` on a 429) — present
 * when `required`, and valid against their schema when present (an integer header read as a number). A response
 * that documents no header is not judged.
 * @see https://spec.openapis.org/oas/v3.1.0#header-object
 */
import {
  createSchemaValidator,
  type OpenApiDocument,
  pointerToken,
  resolvePointer,
  specOperations,
} from "@compute-api/contract";
import type { Answer } from "./http.js";

/** A documented header: its name, whether it is required, and the pointer of its schema. */
interface DocumentedHeader {
  name: string;
  required: boolean;
  schema: string;
}

type Ref = { $ref?: string };

/** The object at a pointer followed through `$ref`, and the pointer it was found at. */
function follow(spec: OpenApiDocument, pointer: string): { at: string; value: Record<string, unknown> | undefined } {
  let at = pointer;
  let value = resolvePointer(spec, at) as (Record<string, unknown> & Ref) | undefined;
  for (let hops = 0; typeof value?.$ref === "string" && hops < 8; hops++) {
    at = value.$ref;
    value = resolvePointer(spec, at) as (Record<string, unknown> & Ref) | undefined;
  }
  return { at, value };
}

/** The headers a response of each operation documents, by operationId and response key (`429`, `5XX`, `default`). */
function documentedHeaders(spec: OpenApiDocument): Map<string, Map<string, DocumentedHeader[]>> {
  const out = new Map<string, Map<string, DocumentedHeader[]>>();
  for (const { path, method, operation } of specOperations(spec)) {
    const byKey = new Map<string, DocumentedHeader[]>();
    const responses = `#/paths/${pointerToken(path)}/${method}/responses`;
    for (const key of Object.keys((operation.responses as object | undefined) ?? {})) {
      const response = follow(spec, `${responses}/${pointerToken(key)}`);
      const headers = Object.keys((response.value?.headers as object | undefined) ?? {}).map((name) => {
        const header = follow(spec, `${response.at}/headers/${pointerToken(name)}`);
        return { name: name.toLowerCase(), required: header.value?.required === true, schema: `${header.at}/schema` };
      });
      if (headers.length > 0) byKey.set(key, headers);
    }
    out.set(String(operation.operationId), byKey);
  }
  return out;
}

/** Whether a header's text is valid against its schema: as the text, or as the number it reads as. */
const holds = (validate: (value: unknown) => boolean, text: string): boolean =>
  validate(text) || (/^-?\d+(\.\d+)?$/.test(text.trim()) && validate(Number(text)));

/** The header check of a document: a sentence when a documented header is missing or invalid, null when they hold. */
export function createHeaderCheck(
  spec: OpenApiDocument,
): (operationId: string, answer: Answer) => string | null | undefined {
  const documented = documentedHeaders(spec);
  const validator = createSchemaValidator(spec);
  return (operationId, answer) => {
    const byKey = documented.get(operationId);
    const status = String(answer.status);
    const key = [status, `${status[0]}XX`, "default"].find((k) => byKey?.has(k));
    const headers = key === undefined ? undefined : byKey?.get(key);
    if (!headers) return undefined;
    const problems = headers.flatMap((h) => {
      const text = answer.headers[h.name];
      if (text === undefined) return h.required ? [`${h.name} is required and missing`] : [];
      const value = Array.isArray(text) ? text.join(", ") : String(text);
      return holds(validator.compile(h.schema), value) ? [] : [`${h.name}: ${JSON.stringify(value)} breaks its schema`];
    });
    return problems.length === 0 ? null : problems.join("; ");
  };
}
