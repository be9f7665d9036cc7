/**
 * A tool as one host lists it (`--client`): its schemas within the host's subset (`host-subsets.ts`), what the
 * subset cannot say written into the descriptions (of the schema that had it, or of the tool for the arguments as a
 * whole). The values a schema allows only widen: every call is still held to the full schema before anything is
 * sent, once an optional argument given as null is taken for one not given.
 */
import { type Host, type HostSubset, hostSubsets } from "./host-subsets.js";
import { describedWith, phrasesOf, silentKeywords } from "./schema-phrases.js";
import { isObject } from "./tool-schemas.js";
import type { GeneratedTool, Json, JsonObject, McpTool } from "./tool-types.js";

/** What the walk of one schema needs. */
interface Walk {
  subset: HostSubset;
  /** The root's `$defs`, to inline a `$ref` from. */
  defs: JsonObject;
  /** The `$defs` inlined on the way here: one met again is a recursion the host cannot take inlined. */
  stack: readonly string[];
  /** Where the rules of the root go (the tool's description); undefined below the root. */
  rootPhrases: string[] | undefined;
  /**
   * An output schema: what the service promises, for a host that sends it to the model with every request; it
   * goes without descriptions (the data names its fields) or words for what the subset drops.
   */
  output: boolean;
}

/** The component a `$ref` names in the root's `$defs`. */
function target(walk: Walk, ref: string): { name: string; schema: Json } {
  const name = ref.replace(/^#\/\$defs\//, "");
  const schema = walk.defs[name];
  if (schema === undefined) throw new Error(`$ref ${ref} does not resolve`);
  if (walk.stack.includes(name)) throw new Error(`${name} refers to itself; it cannot be inlined`);
  return { name, schema };
}

/** The parts of an `allOf`, each resolved, merged into the schema (properties and required joined). */
function mergedAllOf(walk: Walk, schema: JsonObject): JsonObject {
  const { allOf, ...rest } = schema;
  if (!Array.isArray(allOf)) return schema;
  const merged: JsonObject = { ...rest };
  for (const raw of allOf) {
    const part = isObject(raw) && typeof raw.$ref === "string" ? target(walk, raw.$ref).schema : raw;
    if (!isObject(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isObject(value))
        merged.properties = { ...value, ...(isObject(merged.properties) ? merged.properties : {}) };
      else if (key === "required" && Array.isArray(value))
        merged.required = [...new Set([...value, ...(Array.isArray(merged.required) ? merged.required : [])])];
      else merged[key] ??= value;
    }
  }
  return merged;
}

/** The schema, or the same allowing null too (an optional property where every property must be required). */
function nullable(schema: Json): Json {
  if (!isObject(schema)) return schema;
  const out: JsonObject = { ...schema };
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (Array.isArray(out.type)) out.type = [...new Set([...out.type, "null"])];
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: "null" }];
  return out.type === undefined && out.anyOf === undefined ? { anyOf: [schema, { type: "null" }] } : out;
}

/**
 * The properties of an object schema, each adapted; a `false` one (the property is never there, as the search
 * results' other typed fields) is left out: no host's subset takes a boolean schema, and an absent property says
 * the same where objects are closed.
 */
function adaptedProperties(walk: Walk, properties: JsonObject): JsonObject {
  const below = { ...walk, rootPhrases: undefined };
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, child]) => child !== false)
      .map(([name, child]) => [name, adapt(below, child)]),
  );
}

/** One schema within the host's subset; its rules that the subset cannot say in its description. */
function adapt(walk: Walk, node: Json): Json {
  if (!isObject(node)) return node;
  let schema: JsonObject = node;
  if (typeof schema.$ref === "string" && !walk.subset.refs) {
    const { $ref, ...siblings } = schema;
    const { name, schema: component } = target(walk, $ref);
    return adapt({ ...walk, stack: [...walk.stack, name] }, { ...(isObject(component) ? component : {}), ...siblings });
  }
  if (walk.subset.mergeAllOf) schema = mergedAllOf(walk, schema);
  if (Array.isArray(schema.oneOf)) {
    const { oneOf, ...rest } = schema;
    schema = { ...rest, anyOf: oneOf };
  }
  if (walk.subset.constAsEnum && "const" in schema) {
    const { const: value, ...rest } = schema;
    schema = { ...rest, enum: [value ?? null] };
  }
  const out: JsonObject = {};
  const dropped: JsonObject = {};
  const below = { ...walk, rootPhrases: undefined };
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "properties" && isObject(value)) out.properties = adaptedProperties(walk, value);
    else if (
      (keyword === "items" || keyword === "additionalProperties") &&
      isObject(value) &&
      walk.subset.keeps[keyword]
    )
      out[keyword] = adapt(below, value);
    else if (keyword === "anyOf" && Array.isArray(value)) out.anyOf = value.map((branch) => adapt(below, branch));
    else if (keyword === "$defs" && isObject(value)) {
      if (walk.subset.refs) out.$defs = Object.fromEntries(Object.entries(value).map(([n, d]) => [n, adapt(below, d)]));
    } else if (keyword === "description" || silentKeywords.has(keyword)) continue;
    else {
      const keep = walk.subset.keeps[keyword];
      if (keep === true || keep?.(value, schema)) out[keyword] = value;
      else dropped[keyword] = value;
    }
  }
  closeObject(walk.subset, schema, out, dropped, walk.rootPhrases !== undefined);
  if (walk.output) return out;
  const phrases = phrasesOf(dropped);
  if (walk.rootPhrases) walk.rootPhrases.push(...phrases);
  const description = describedWith(schema.description, walk.rootPhrases ? [] : phrases, exampleOf(schema));
  return description ? { description, ...out } : out;
}

/** The first example of a schema, for its description (no host takes `examples`). */
const exampleOf = (schema: JsonObject): Json | undefined =>
  Array.isArray(schema.examples) ? schema.examples[0] : undefined;

/** An object as the host needs it: closed or not said so, and every property required (optional ones nullable). */
function closeObject(subset: HostSubset, schema: JsonObject, out: JsonObject, dropped: JsonObject, root: boolean) {
  if (schema.type !== "object" && !isObject(schema.properties)) return;
  if (subset.closedObjects && schema.additionalProperties !== false) {
    // Closing an object that takes other fields would refuse what the full schema allows.
    throw new Error("an object that takes other fields cannot be listed for a host that needs every object closed");
  }
  if (subset.closedObjects) out.additionalProperties = false;
  // The root's own arguments are all listed: that no other one is taken needs no words.
  else if (root) delete dropped.additionalProperties;
  if (!subset.allRequired || !isObject(out.properties)) return;
  const required = Array.isArray(out.required) ? out.required : [];
  for (const [name, child] of Object.entries(out.properties)) {
    if (!required.includes(name)) out.properties[name] = nullable(child);
  }
  out.required = Object.keys(out.properties);
}

/** The tool as `host` lists it: input (and, where the host reads it, output) schemas within its subset. */
export function toolForHost({ tool, operation }: GeneratedTool, host: Host): McpTool {
  const subset = hostSubsets[host];
  const rootPhrases: string[] = [];
  const inputWalk: Walk = { subset, defs: {}, stack: [], rootPhrases, output: false };
  const inputSchema = adapt(inputWalk, tool.inputSchema) as McpTool["inputSchema"];
  const outputSchema =
    tool.outputSchema && subset.readsOutputSchema
      ? (adapt(
          {
            subset,
            defs: isObject(tool.outputSchema.$defs) ? tool.outputSchema.$defs : {},
            stack: [],
            rootPhrases: undefined,
            output: true,
          },
          tool.outputSchema,
        ) as McpTool["outputSchema"])
      : tool.outputSchema;
  // The flat arguments hold the path parameters too: "at least n fields" counts them, and is said of the body's.
  const { minProperties } = tool.inputSchema;
  const arguments_ = rootPhrases.map((phrase) =>
    typeof minProperties === "number" && operation.bodyProperties && phrase.endsWith(" fields")
      ? `at least ${minProperties - operation.pathParameters.length} of ${operation.bodyProperties.join(", ")}`
      : phrase,
  );
  const notes = [
    ...(arguments_.length > 0 ? [`The arguments must also hold: ${arguments_.join("; ")}.`] : []),
    ...(subset.allRequired ? ["An optional argument (one that may be null) given as null is taken as not given."] : []),
  ];
  return {
    ...tool,
    description: [tool.description, ...notes].join("\n\n"),
    inputSchema,
    ...(outputSchema && { outputSchema }),
  };
}
