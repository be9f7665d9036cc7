/**
 * The documented rules of each agent host's subset of JSON Schema, written down here on their own (not read from
 * src/host-subsets.ts), so that a listed schema is held to what the host says it takes. Each checker returns the
 * rules a schema breaks, as `<where>: <rule>`; none for a schema the host takes.
 * - OpenAI, Structured Outputs (function calling's strict mode):
 *   https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 * - Anthropic, strict tool use: https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
 * - Gemini, function declarations' Schema: https://ai.google.dev/api/caching#Schema
 */
type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every schema inside a schema (with where it is), the schema first. */
function* schemasOf(schema: unknown, at = "", depth = 1): Generator<{ at: string; node: Node; depth: number }> {
  if (!isNode(schema)) return;
  yield { at: at || "(root)", node: schema, depth };
  for (const [name, child] of Object.entries(isNode(schema.properties) ? schema.properties : {}))
    yield* schemasOf(child, `${at}.${name}`, depth + 1);
  if (isNode(schema.items)) yield* schemasOf(schema.items, `${at}[]`, depth);
  if (isNode(schema.additionalProperties)) yield* schemasOf(schema.additionalProperties, `${at}{}`, depth + 1);
  for (const key of ["anyOf", "allOf", "oneOf"] as const)
    if (Array.isArray(schema[key]))
      for (const [i, b] of schema[key].entries()) yield* schemasOf(b, `${at}.${key}[${i}]`, depth);
  for (const [name, def] of Object.entries(isNode(schema.$defs) ? schema.$defs : {}))
    yield* schemasOf(def, `$defs.${name}`, 1);
}

const isObjectSchema = (node: Node) =>
  node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || isNode(node.properties);
const primitive = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

function keywordProblems(at: string, node: Node, allowed: readonly string[]): string[] {
  return Object.keys(node)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${at}: ${key} is not supported`);
}

const openaiKeywords = [
  ...["type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf"],
  ...["$defs", "$ref", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  ...["multipleOf", "minItems", "maxItems"],
];
const openaiFormats = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/** OpenAI strict mode: objects closed, every property required, its keywords and formats, its limits. */
export function openaiProblems(schema: Node): string[] {
  const problems: string[] = [];
  if (schema.type !== "object" || "anyOf" in schema) problems.push("(root): must be an object, not anyOf");
  let properties = 0;
  let enumValues = 0;
  let text = 0;
  for (const { at, node, depth } of schemasOf(schema)) {
    problems.push(...keywordProblems(at, node, openaiKeywords));
    if (depth > 10) problems.push(`${at}: more than 10 levels of nesting`);
    if (typeof node.format === "string" && !openaiFormats.includes(node.format))
      problems.push(`${at}: format ${node.format} is not supported`);
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      text += node.enum.join("").length;
      if (!node.enum.every(primitive)) problems.push(`${at}: enum values must be strings, numbers, booleans or null`);
    }
    if (!isObjectSchema(node)) continue;
    const names = Object.keys(isNode(node.properties) ? node.properties : {});
    properties += names.length;
    text += names.join("").length;
    if (node.additionalProperties !== false) problems.push(`${at}: additionalProperties must be false`);
    const required = Array.isArray(node.required) ? node.required : [];
    for (const name of names) if (!required.includes(name)) problems.push(`${at}: ${name} must be required`);
  }
  if (properties > 5000) problems.push("more than 5000 object properties");
  if (enumValues > 1000) problems.push("more than 1000 enum values");
  if (text > 120_000) problems.push("more than 120,000 characters of names and enum values");
  return problems;
}

const anthropicKeywords = [
  ...["type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf"],
  ...["allOf", "$defs", "$ref", "default", "pattern", "format", "minItems"],
];
const anthropicFormats = ["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/** Anthropic strict tool use: its keywords, additionalProperties false only, minItems 0 or 1, its formats, its regexes. */
export function anthropicProblems(schema: Node): string[] {
  const problems: string[] = [];
  const refs: string[] = [];
  for (const { at, node } of schemasOf(schema)) {
    problems.push(...keywordProblems(at, node, anthropicKeywords));
    if ("additionalProperties" in node && node.additionalProperties !== false)
      problems.push(`${at}: additionalProperties may only be false`);
    if ("minItems" in node && node.minItems !== 0 && node.minItems !== 1) problems.push(`${at}: minItems only 0 or 1`);
    if (typeof node.format === "string" && !anthropicFormats.includes(node.format))
      problems.push(`${at}: format ${node.format} is not supported`);
    if (typeof node.pattern === "string" && /\\[1-9]|\(\?[=!<]|\\[bB]/.test(node.pattern))
      problems.push(`${at}: backreferences, lookarounds and word boundaries are not supported`);
    if (Array.isArray(node.enum) && !node.enum.every(primitive)) problems.push(`${at}: enum values must be primitive`);
    if (typeof node.$ref === "string") refs.push(node.$ref);
  }
  for (const ref of refs) {
    const def = ref.replace("#/$defs/", "");
    const target = isNode(schema.$defs) ? schema.$defs[def] : undefined;
    if (JSON.stringify(target ?? {}).includes(`"#/$defs/${def}"`))
      problems.push(`${def}: recursive schemas are not supported`);
  }
  return problems;
}

/** Anthropic's limits per request: at most 24 optional parameters and 16 with a union type, over all strict tools. */
export function anthropicRequestProblems(schemas: Node[]): string[] {
  let optional = 0;
  let unions = 0;
  for (const schema of schemas) {
    const properties = Object.entries(isNode(schema.properties) ? schema.properties : {});
    const required = Array.isArray(schema.required) ? schema.required : [];
    optional += properties.filter(([name]) => !required.includes(name)).length;
    unions += properties.filter(([, p]) => isNode(p) && (Array.isArray(p.type) || "anyOf" in p)).length;
  }
  return [
    ...(optional > 24 ? [`${optional} optional parameters, more than 24`] : []),
    ...(unions > 16 ? [`${unions} parameters with union types, more than 16`] : []),
  ];
}

const geminiKeywords = [
  ...["type", "format", "title", "description", "nullable", "enum", "items", "minItems", "maxItems", "properties"],
  ...["required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf"],
  ...["propertyOrdering", "default", "minimum", "maximum"],
];
const geminiFormats: Record<string, string[]> = {
  string: ["enum", "date-time"],
  integer: ["int32", "int64"],
  number: ["float", "double"],
};

/** Gemini's Schema: its fields only, one type, string enums, its formats, required names among the properties. */
export function geminiProblems(schema: Node): string[] {
  const problems: string[] = [];
  for (const { at, node } of schemasOf(schema)) {
    problems.push(...keywordProblems(at, node, geminiKeywords));
    if ("type" in node && !["string", "number", "integer", "boolean", "array", "object"].includes(node.type as string))
      problems.push(`${at}: type must be one of string, number, integer, boolean, array, object`);
    if (Array.isArray(node.enum) && !node.enum.every((v) => typeof v === "string"))
      problems.push(`${at}: enum values must be strings`);
    if (typeof node.format === "string" && !(geminiFormats[node.type as string] ?? []).includes(node.format))
      problems.push(`${at}: format ${node.format} is not supported for ${String(node.type)}`);
    const names = Object.keys(isNode(node.properties) ? node.properties : {});
    for (const name of Array.isArray(node.required) ? node.required : [])
      if (!names.includes(name)) problems.push(`${at}: required ${name} is not a property`);
  }
  return problems;
}
