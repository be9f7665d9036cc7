/**
 * JSON pointers for the check's findings. oasdiff names the operation of a change and, in its sentence, the property,
 * parameter and status; the pointer names the operation and the part of it: the parameter, the request body or the
 * response. A removal points into the released spec, anything else into the current one.
 */
import type { OasdiffChange } from "./oasdiff.js";

/** A spec as the check read it: the name to print and the parsed document. */
export interface SpecFile {
  name: string;
  doc: unknown;
}

/** The two specs compared. */
export interface SpecFiles {
  baseline: SpecFile;
  current: SpecFile;
}

type Obj = Record<string, unknown>;

/** One JSON pointer token (RFC 6901). */
export const token = (s: string | number): string => String(s).replaceAll("~", "~0").replaceAll("/", "~1");

/** `file#/a/b` from unescaped tokens. */
export const locate = (file: SpecFile, tokens: (string | number)[]): string =>
  `${file.name}#${tokens.map((t) => `/${token(t)}`).join("")}`;

function resolve(doc: unknown, value: unknown): Obj | undefined {
  const ref = (value as Obj | undefined)?.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return value as Obj | undefined;
  const tokens = ref
    .slice(2)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
  return tokens.reduce<unknown>((v, t) => (v as Obj | undefined)?.[t], doc) as Obj | undefined;
}

/** The pointer tokens of parameter `name` in `where`, at the operation's level or its path's, if it is there. */
export function parameterTokens(
  doc: unknown,
  apiPath: string,
  method: string,
  where: string,
  name: string,
): (string | number)[] | undefined {
  const item = ((doc as { paths?: Obj }).paths?.[apiPath] ?? undefined) as Obj | undefined;
  const owners: [Obj | undefined, string[]][] = [
    [item?.[method] as Obj | undefined, ["paths", apiPath, method]],
    [item, ["paths", apiPath]],
  ];
  for (const [owner, prefix] of owners) {
    const list = (owner?.parameters ?? []) as unknown[];
    const i = list.findIndex((p) => {
      const param = resolve(doc, p);
      return param?.name === name && param?.in === where;
    });
    if (i >= 0) return [...prefix, "parameters", i];
  }
  return undefined;
}

/** Whether the tokens name a value in the document (read as written, without resolving `$ref`s). */
function exists(doc: unknown, tokens: (string | number)[]): boolean {
  let value: unknown = doc;
  for (const t of tokens) {
    if (value === null || typeof value !== "object" || !(t in value)) return false;
    value = (value as Obj)[t];
  }
  return true;
}

/** The tokens in the current spec, or in the released one where the change removed what they name. */
function inEither(files: SpecFiles, tokens: (string | number)[]): string {
  return locate(exists(files.current.doc, tokens) ? files.current : files.baseline, tokens);
}

/** The location of an oasdiff change: the operation, and in it the parameter, request body or response. */
export function pointer(change: OasdiffChange, files: SpecFiles): string {
  const id = change.id ?? "";
  if (!change.path || !change.operation) return locate(files.current, ["components"]);
  const method = change.operation.toLowerCase();
  const operation = ["paths", change.path, method];
  const text = change.text ?? "";
  if (/parameter|request-header/.test(id)) {
    const named = /`(path|query|header|cookie)` request parameter `([^`]+)`/.exec(text);
    for (const file of [files.current, files.baseline]) {
      const found = named && parameterTokens(file.doc, change.path, method, named[1]!, named[2]!);
      if (found) return locate(file, found);
    }
    return inEither(files, [...operation, "parameters"]);
  }
  if (/request/.test(id)) return inEither(files, [...operation, "requestBody"]);
  if (/response/.test(id)) {
    const status = /status `([1-5][0-9X]{2}|default)`|`([1-5][0-9X]{2}|default)` status/.exec(text);
    const code = status?.[1] ?? status?.[2];
    return inEither(files, [...operation, "responses", ...(code ? [code] : [])]);
  }
  return inEither(files, operation);
}
